#!/usr/bin/env bash
# On the GPU machine (Ubuntu 24.04, one H200): builds ltt, optionally runs the test suite,
# then scripts/torch_tiers.py -- every tier computed with PyTorch's own ops on the GPU on
# `ltt golden` cases at Kimi-K3 sizes, judged by `ltt verify`, with planted bugs -- for
# T 8 and T 16 side by side. Logs and tables go to $OUT (the device tool brings them back).
#   here first: bash ../shared/tools/device-deps.sh   (Random123 headers in .device-deps/)
#   there:      OUT=/tmp/out TPS="8 16" TOKENS=1,5,33,128,256,2048 GEMM=bf16 TESTS=0 scripts/h200-contract.sh
# COMPILE=1: torch.compile of each tier instead of eager ops (the bugs are then not run); with
# KEEP_CASTS=1 too, Inductor's graph patterns off, which otherwise drop the bf16 rounding points
# (README, "PyTorch on the GPU machine": with them dropped every output fails; tiers 0, 1 and 3 are flagged so, tiers 2 and 4 mostly not);
# COMPILE_MODE=max-autotune GEMM_BACKENDS=TRITON: Inductor's own Triton GEMMs (run on the H200 through
# torch_tiers.py itself, with KEEP_CASTS's settings: bench/results/h200/s13/4-triton; autotuning takes minutes a case);
# DYNAMIC=1: each tier compiled once with M symbolic (--dynamic-tokens), so the autotuning runs at the first
# M only and its kernels serve every later M (bench/results/h200/s14; put the M to tune at first in TOKENS).
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-/tmp/ltt-out}
mkdir -p "$out"
tokens=${TOKENS:-1,5,33,128,256,2048}
gemm=${GEMM:-bf16}
tps=${TPS:-8 16}
mode=() tag=$gemm
if [ "${COMPILE:-0}" = 1 ]; then
  mode=(--compile) tag=${gemm}_compile
  if [ "${KEEP_CASTS:-0}" = 1 ]; then mode+=(--keep-casts) tag=${tag}_keep_casts; fi
  if [ -n "${COMPILE_MODE:-}" ]; then mode+=(--compile-mode "$COMPILE_MODE") tag=${tag}_$COMPILE_MODE; fi
  if [ -n "${GEMM_BACKENDS:-}" ]; then mode+=(--gemm-backends "$GEMM_BACKENDS") tag=${tag}_$GEMM_BACKENDS; fi
  if [ "${DYNAMIC:-0}" = 1 ]; then mode+=(--dynamic-tokens) tag=${tag}_dynamic; fi
elif [ -n "${KEEP_CASTS:-}${COMPILE_MODE:-}${GEMM_BACKENDS:-}${DYNAMIC:-}" ]; then
  echo "h200-contract.sh: KEEP_CASTS, COMPILE_MODE, GEMM_BACKENDS and DYNAMIC need COMPILE=1" >&2; exit 2
fi
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv > "$out/gpu.txt" 2>&1
t0=$(date +%s)
if ! { cmake --preset release -DLTT_WITH_FUZZ=OFF -DCMAKE_PREFIX_PATH="$PWD/.device-deps/usr" > "$out/build.log" 2>&1 &&
       cmake --build --preset release -j"$(nproc)" --target ltt >> "$out/build.log" 2>&1; }; then
  tail -40 "$out/build.log"; exit 2
fi
echo "build: $(( $(date +%s) - t0 )) s"
if [ "${TESTS:-0}" = 1 ]; then
  cmake --build --preset release -j"$(nproc)" >> "$out/build.log" 2>&1
  OMP_NUM_THREADS=2 ctest --preset release -j8 > "$out/ctest.log" 2>&1
  echo "ctest exit $?: $(grep -E 'tests passed|tests failed' "$out/ctest.log")"
fi
pids=()
for tp in $tps; do
  OMP_NUM_THREADS=8 PYTHONUNBUFFERED=1 python3 scripts/torch_tiers.py --ltt build/release/bin/ltt --work "/tmp/torch_tiers_T$tp" \
    --dims k3 --tp "$tp" --tokens "$tokens" --dist realistic,adversarial --device cuda --gemm "$gemm" "${mode[@]}" \
    --out "$out/torch_${tag}_T$tp.md" --json "$out/torch_${tag}_T$tp.json" > "$out/torch_${tag}_T$tp.log" 2>&1 &
  pids+=($!)
done
rc=0
for p in "${pids[@]}"; do wait "$p" || rc=1; done
for tp in $tps; do grep -E "^# correct outputs|^!!!" "$out/torch_${tag}_T$tp.log" | sed "s/^/T $tp: /"; done
echo "torch_tiers exit $rc; total $(( $(date +%s) - t0 )) s"
exit "$rc"
