#!/usr/bin/env bash
# The full test suite: set up, build the release and the sanitizer (debug)
# presets, run ctest on both.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh release
ctest --preset release -j"$(nproc)"
scripts/setup.sh debug
ctest --preset debug -j"$(nproc)" -E '^cli\.selftest_small$|^reference$'
