#!/usr/bin/env bash
# The main job: set up, build, run `ltt check` (k3 sizes, fake ranks, T 8 and
# 16, every tier where it applies at M 1, 5, 33, 128, tiers 1-4 also at 256,
# 257, 2048, all three distributions). Extra arguments go to ltt check
# (e.g. --json results.json --markdown summary.md).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh release
exec build/release/bin/ltt check "$@"
