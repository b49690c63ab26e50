#!/usr/bin/env bash
# The main job: set up, build, run `ltt selftest` (k3 sizes, T 8 and 16, every
# tier, exact and emulated, against the float64 truth). Extra arguments go to
# ltt selftest (e.g. --bench).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh release
exec build/release/bin/ltt selftest "$@"
