#!/usr/bin/env bash
# The full test suite: set up, build the release and the sanitizer (debug)
# presets, run ctest on both.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh release
ctest --preset release -j"$(nproc)"
scripts/setup.sh debug
# Skipped there (they run in the release build above): the reference sweep and
# the k3 regeneration of golden.regress, far too slow unoptimised.
ctest --preset debug -j"$(nproc)" -E '^cli\.selftest_small$|^reference$|^golden\.regress$'
