#!/usr/bin/env bash
# The full test suite: set up, build the release and the sanitizer (debug)
# presets, run ctest on both.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh release
ctest --preset release -j"$(nproc)"
scripts/setup.sh debug
# Skipped there (they run in the release build above), far too slow
# unoptimised: the reference sweep, the k3 regeneration of golden.regress, the
# k3 admissible-set test, the end-to-end sweeps of 10 variants and of the
# mutant table (their pipelines and checks run under the sanitizers in the
# admissible, tier and check suites), and PyTorch's and numpy's tiers (torch.*,
# numpy.*: ltt verify's paths, which the golden suites run under the sanitizers).
ctest --preset debug -j"$(nproc)" -E '^cli\.selftest_small$|^reference$|^golden\.regress$|^admissible_k3$|^check\.variants$|^mutants\.small$|^mutants\.ring_small$|^torch\.|^numpy\.'
