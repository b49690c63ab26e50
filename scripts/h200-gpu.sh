#!/usr/bin/env bash
# On the GPU machine (one H200): builds ltt with the cuda backend, runs the GPU
# tests, `ltt check --backend cuda` on fake ranks at small and k3 sizes, and
# compute-sanitizer on a small case of every tier. Logs and JSON go to $OUT.
#   here first: bash ../shared/tools/device-deps.sh   (Random123 headers in .device-deps/)
#   there:      OUT=/tmp/out K3_TOKENS=1,5,33,128,256,257,2048 BIG=8192 BENCH=1 scripts/h200-gpu.sh
#   (K3_TOKENS= skips the k3 check, BIG= the large-M one, BENCH=0 the timings, SANITIZE=0 the sanitizers)
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-/tmp/ltt-out}
mkdir -p "$out"
k3_tokens=${K3_TOKENS-1,5,33,128,256,257,2048}
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv > "$out/gpu.txt" 2>&1
t0=$(date +%s)
if ! { cmake --preset release -DLTT_WITH_FUZZ=OFF -DCMAKE_CUDA_ARCHITECTURES=90 -DCMAKE_PREFIX_PATH="$PWD/.device-deps/usr" > "$out/build.log" 2>&1 &&
       cmake --build --preset release -j"$(nproc)" >> "$out/build.log" 2>&1; }; then
  tail -40 "$out/build.log"; exit 2
fi
echo "build: $(( $(date +%s) - t0 )) s"
ltt=build/release/bin/ltt
step() {  # name, command...: runs it, logs it, prints its verdict lines
  local name=$1; shift
  local a=$(date +%s)
  "$@" > "$out/$name.log" 2>&1
  local rc=$?
  echo "$name: exit $rc, $(( $(date +%s) - a )) s: $(grep -E '^# (Out of bound|[0-9]+ cases)' "$out/$name.log" | tr '\n' ' ')"
  [ $rc -ne 0 ] && grep -E "FAIL|ltt:" "$out/$name.log" | head -8
  return 0
}
(OMP_NUM_THREADS=2 scripts/ctest-gpu-host.sh -R "^gpu\." > "$out/ctest_gpu.log" 2>&1; echo "ctest gpu: exit $? (a skip that must not happen is a failure): $(grep -E 'tests passed|tests failed|ctest-gpu-host' "$out/ctest_gpu.log" | tr '\n' ' ')")
step small      $ltt check --backend cuda --dims small --tp 8,16 --tokens 1,5,33,129,257 --json "$out/small.json"
step small_ring $ltt check --backend cuda --dims small --tp 8,16 --tokens 1,5,33,129,257 --algo ring --json "$out/small_ring.json"
step planted    $ltt check --backend cuda --dims small --tp 8 --tokens 33 --tier 0,2 --dist realistic --plant shard-off-by-one
if [ "${SANITIZE:-1}" = 1 ] && command -v compute-sanitizer > /dev/null; then
  for tool in memcheck racecheck synccheck initcheck; do
    step "sanitizer_$tool" compute-sanitizer --tool "$tool" --error-exitcode 9 $ltt check --backend cuda --dims small --tp 8 --tokens 5 --dist realistic
  done
fi
step mutants $ltt mutants --backend cuda --dims k3 --tp 8 --tokens 5,33 --json "$out/mutants.json"
[ "${BENCH:-1}" = 1 ] && step bench $ltt bench --backend cuda --dims k3 --tp 8 --tokens 1,5,33,128,256,2048,8192 --json "$out/bench.json"
[ -n "$k3_tokens" ] && step k3 $ltt check --backend cuda --dims k3 --tp 8,16 --tokens "$k3_tokens" --json "$out/k3.json" --markdown "$out/k3.md"
[ -n "${BIG:-}" ] && step k3_big $ltt check --backend cuda --dims k3 --tp 8 --tokens "$BIG" --dist realistic,adversarial --json "$out/k3_big.json"
echo "total $(( $(date +%s) - t0 )) s"
