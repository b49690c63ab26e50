#!/usr/bin/env bash
# On the GPU machine (Ubuntu 24.04, one H200): builds ltt, runs the test suite, then
# scripts/torch_tiers.py -- every tier computed with PyTorch's own ops on the GPU on
# `ltt golden` cases at Kimi-K3 sizes, judged by `ltt verify`, with planted bugs.
# Logs and tables go to $OUT (the device tool brings them back).
#   scripts/../shared/tools/device-deps.sh here first (Random123 headers in .device-deps/), then
#   OUT=/tmp/out TP=8 TOKENS=1,5,33,128,256,2048 scripts/h200-contract.sh
# TESTS=0 skips the test suite (a second call for the other TP).
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-/tmp/ltt-out}
mkdir -p "$out"
tp=${TP:-8}
tokens=${TOKENS:-1,5,33,128,256,2048}
export CPLUS_INCLUDE_PATH=$PWD/.device-deps/usr/include
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv > "$out/gpu.txt" 2>&1
t0=$(date +%s)
if ! { cmake --preset release -DLTT_WITH_FUZZ=OFF > "$out/build.log" 2>&1 && cmake --build --preset release -j"$(nproc)" >> "$out/build.log" 2>&1; }; then
  tail -40 "$out/build.log"; exit 2
fi
echo "build: $(( $(date +%s) - t0 )) s"
if [ "${TESTS:-1}" = 1 ]; then
  ctest --preset release -j"$(nproc)" > "$out/ctest.log" 2>&1
  echo "ctest exit $?: $(grep -E 'tests passed|tests failed' "$out/ctest.log")"
  build/release/bin/ltt regress data/golden > "$out/regress.log" 2>&1
  echo "regress exit $?: $(grep 'Drifted' "$out/regress.log")"
fi
PYTHONUNBUFFERED=1 python3 scripts/torch_tiers.py --ltt build/release/bin/ltt --work /tmp/torch_tiers --dims k3 \
  --tp "$tp" --tokens "$tokens" --dist realistic,adversarial --device cuda \
  --out "$out/torch_tiers_T$tp.md" --json "$out/torch_tiers_T$tp.json" 2>&1 | tee "$out/torch_tiers_T$tp.log"
rc=${PIPESTATUS[0]}
echo "torch_tiers exit $rc; total $(( $(date +%s) - t0 )) s"
exit "$rc"
