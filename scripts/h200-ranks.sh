#!/usr/bin/env bash
# On the two-GPU machine (nvidia-h200-x2): correctness of the cuda backend,
# fake ranks and real ones. Logs go to $OUT/r and come back as $OUT/r.tgz.
#   1. the GPU ctest entries (stops here if one fails);
#   2. at once: fake ranks on GPU 0, k3, T 8 and 16, every M and
#      distribution; one process per rank on GPU 1 (mpirun -np 8, IPC peer
#      memory), then fake ranks at M 8192;
#   3. both GPUs, one process each (mpirun -np 2): tier 0 forced at T 2,
#      T/2 ranks per GPU at T 8 and 16, NCCL's all-reduce at T 2 (tiers 1-4),
#      tier 0 over NCCL symmetric windows (--peer-memory nccl) at T 2, 8, 16,
#      tier 0's cross-GPU path under compute-sanitizer, over both peer memories.
# Every multi-process output is also compared bit for bit with the fake-rank
# run of the same case (the report's "against the fake-rank run" lines).
#   here first: bash ../shared/tools/device-deps.sh   (Random123 headers in .device-deps/)
#   there:      OUT=/tmp/out scripts/h200-ranks.sh
set -uo pipefail
cd "$(dirname "$0")/.."
R=${OUT:-/tmp/ltt-out}/r
mkdir -p "$R"
export NCCL_NVLS_ENABLE=0 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
t0=$(date +%s)
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv > "$R/gpu.txt" 2>&1
nvidia-smi topo -m >> "$R/gpu.txt" 2>&1
if [ ! -x build/release/bin/ltt ]; then
  { cmake --preset release -DLTT_WITH_FUZZ=OFF -DCMAKE_CUDA_ARCHITECTURES=90 -DCMAKE_PREFIX_PATH="$PWD/.device-deps/usr" &&
    cmake --build --preset release -j"$(nproc)"; } > "$R/build.log" 2>&1 || { tail -30 "$R/build.log"; exit 2; }
  echo "build: $(( $(date +%s) - t0 )) s"
fi
L=$PWD/build/release/bin/ltt
M="mpirun --allow-run-as-root --oversubscribe -x NCCL_NVLS_ENABLE -x OMP_NUM_THREADS"
step() {  # name, timeout, command...: runs it, logs it, prints its verdict lines
  local n=$1 to=$2; shift 2
  local a=$(date +%s)
  timeout "$to" "$@" > "$R/$n.log" 2>&1
  local rc=$?
  echo "$n: exit $rc, $(( $(date +%s) - a )) s: $(grep -E '^# ([0-9]+ cases|Out of)' "$R/$n.log" | tr '\n' ' ')" \
       "fake-rank run: $(grep -c 'every rank bitwise identical' "$R/$n.log") identical, $(grep -c 'ranks differ' "$R/$n.log") differing"
  [ $rc -ne 0 ] && grep -E "FAIL|ltt:|rror" "$R/$n.log" | head -6
  return 0
}
OMP_NUM_THREADS=4 timeout 300 scripts/ctest-gpu-host.sh -R '^gpu\.' -j4 > "$R/ctest_gpu.log" 2>&1
gpu_rc=$?
echo "ctest gpu: $(grep -E 'tests passed|tests failed|ctest-gpu-host' "$R/ctest_gpu.log" | tr '\n' ' ')"
[ $gpu_rc -eq 0 ] || { grep -E "Failed|\*\*\*" "$R/ctest_gpu.log"; tar czf "$R.tgz" -C "$(dirname "$R")" r; exit 1; }
export OMP_NUM_THREADS=16
(
  export CUDA_VISIBLE_DEVICES=0
  step fake_k3 400 "$L" check --backend cuda --dims k3 --tp 8,16 --tokens 1,5,33,128,256,257,2048 --dist all \
    --json "$R/fake_k3.json" --markdown "$R/fake_k3.md"
) > "$R/phase_gpu0.txt" &
(
  export CUDA_VISIBLE_DEVICES=1
  step np8_k3 300 $M -np 8 "$L" check --backend cuda --dims k3 --tp 8 --tokens 1,5,33,128,256,257,2048 \
    --dist realistic,adversarial --json "$R/np8_k3.json"
  step np8_k3_t16_ring 200 $M -np 8 "$L" check --backend cuda --dims k3 --tp 16 --tokens 1,128,2048 --dist realistic --algo ring
  step fake_k3_8192 300 "$L" check --backend cuda --dims k3 --tp 8 --tokens 8192 --dist realistic --json "$R/fake_k3_8192.json"
) > "$R/phase_gpu1.txt" &
wait
cat "$R/phase_gpu0.txt" "$R/phase_gpu1.txt"
export OMP_NUM_THREADS=8
step np2_t2_tier0 120 $M -np 2 "$L" check --backend cuda --dims k3 --dist all --tp 2 --tier 0 --tokens 1,5,33,128 --json "$R/np2_t2_tier0.json"
step np2_t8_t16 200 $M -np 2 "$L" check --backend cuda --dims k3 --dist realistic,adversarial --tp 8,16 --tokens 1,5,33,128,256,257,2048 \
  --json "$R/np2_t8_t16.json"
step np2_nccl 150 $M -np 2 "$L" check --backend cuda --transport nccl --dims k3 --dist all --tp 2 --tier 1,2,3,4 \
  --tokens 1,5,33,128,256,257,2048 --json "$R/np2_nccl.json"
step np2_sym 150 $M -np 2 "$L" check --backend cuda --peer-memory nccl --dims k3 --dist realistic,adversarial --tp 2,8,16 --tier 0 \
  --tokens 1,5,33,128 --json "$R/np2_sym.json"
if command -v compute-sanitizer > /dev/null; then
  # NCCL's own init probes (cuMemCreate, cudaFuncGetAttributes) fail by
  # design and memcheck would count them; ltt checks every call it makes.
  for mem in cuda-ipc nccl; do
    api=all; [ "$mem" = nccl ] && api=no
    for tool in memcheck racecheck; do
      step "np2_sanitizer_${tool}_$mem" 120 $M -np 2 compute-sanitizer --tool "$tool" --report-api-errors $api --error-exitcode 9 \
        "$L" check --backend cuda --peer-memory "$mem" --dims small --tp 2,8 --tier 0 --tokens 5 --dist realistic
    done
  done
fi
tar czf "$R.tgz" -C "$(dirname "$R")" r
echo "total $(( $(date +%s) - t0 )) s"
