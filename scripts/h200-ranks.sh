#!/usr/bin/env bash
# On a GPU machine (one or two H200s): the cuda backend over several
# processes. One GPU: mpirun -np 8, one rank per process, every collective
# over CUDA IPC peer memory (first without MPS, then with the MPS daemon where
# it is installed). Two GPUs: mpirun -np 2, tier 0 forced at T 2, T/2 ranks
# per GPU at T 8 and 16, and NCCL's all-reduce at T 2; tier 0's cross-GPU
# path under compute-sanitizer. Every output is also compared bit for bit with
# the fake-rank run of the same case. Logs and JSON go to $OUT.
#   here first: bash ../shared/tools/device-deps.sh   (Random123 headers in .device-deps/)
#   there:      OUT=/tmp/out TOKENS=1,5,33,128,256,257,2048 DISTS=all scripts/h200-ranks.sh
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-/tmp/ltt-out}
mkdir -p "$out"
tokens=${TOKENS:-1,5,33,128,256,257,2048}
tokens0=${TOKENS0:-1,5,33,128}  # tier 0's
dists=${DISTS:-all}
export NCCL_NVLS_ENABLE=0 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_NUM_THREADS=${OMP_NUM_THREADS:-4}
ngpu=$(nvidia-smi -L 2>/dev/null | wc -l)
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv > "$out/gpu.txt" 2>&1
nvidia-smi topo -m >> "$out/gpu.txt" 2>&1
t0=$(date +%s)
if [ ! -x build/release/bin/ltt ]; then
  if ! { cmake --preset release -DLTT_WITH_FUZZ=OFF -DCMAKE_CUDA_ARCHITECTURES=90 -DCMAKE_PREFIX_PATH="$PWD/.device-deps/usr" > "$out/build.log" 2>&1 &&
         cmake --build --preset release -j"$(nproc)" >> "$out/build.log" 2>&1; }; then
    tail -40 "$out/build.log"; exit 2
  fi
  echo "build: $(( $(date +%s) - t0 )) s"
fi
ltt=$PWD/build/release/bin/ltt
mpirun="mpirun --allow-run-as-root --oversubscribe -x NCCL_NVLS_ENABLE -x OMP_NUM_THREADS"
step() {  # name, command...: runs it, logs it, prints its verdict lines
  local name=$1; shift
  local a=$(date +%s)
  "$@" > "$out/$name.log" 2>&1
  local rc=$?
  echo "$name: exit $rc, $(( $(date +%s) - a )) s: $(grep -E '^# (Out of bound|[0-9]+ cases)' "$out/$name.log" | tr '\n' ' ')" \
       "fake-rank run: $(grep -c 'every rank bitwise identical' "$out/$name.log") identical, $(grep -c 'ranks differ' "$out/$name.log") differing"
  [ $rc -ne 0 ] && grep -E "FAIL|ltt:|rror" "$out/$name.log" | head -8
  return 0
}
k3() { echo --dims k3 --dist "$dists"; }
# One GPU, one process per rank.
step np8_small  env CUDA_VISIBLE_DEVICES=0 $mpirun -np 8 $ltt check --backend cuda --dims small --tp 8,16 --tokens 1,5,33,129,257
step np8_k3     env CUDA_VISIBLE_DEVICES=0 $mpirun -np 8 $ltt check --backend cuda $(k3) --tp 8 --tokens "$tokens" --json "$out/np8_k3.json"
step np8_k3_t16 env CUDA_VISIBLE_DEVICES=0 $mpirun -np 8 $ltt check --backend cuda $(k3) --tp 16 --tokens "$tokens" --algo ring --json "$out/np8_k3_t16.json"
if [ "$ngpu" -ge 2 ]; then
  step np2_t2_tier0 $mpirun -np 2 $ltt check --backend cuda $(k3) --tp 2 --tier 0 --tokens "$tokens0" --json "$out/np2_t2_tier0.json"
  step np2_t8_t16   $mpirun -np 2 $ltt check --backend cuda $(k3) --tp 8,16 --tokens "$tokens" --json "$out/np2_t8_t16.json"
  step np2_nccl     $mpirun -np 2 $ltt check --backend cuda --transport nccl $(k3) --tp 2 --tier 1,2,3,4 --tokens "$tokens" --json "$out/np2_nccl.json"
  if command -v compute-sanitizer > /dev/null; then
    for tool in memcheck racecheck; do
      step "np2_sanitizer_$tool" $mpirun -np 2 compute-sanitizer --tool "$tool" --error-exitcode 9 $ltt check --backend cuda --dims small --tp 2,8 --tier 0 --tokens 5 --dist realistic
    done
  fi
fi
if command -v nvidia-cuda-mps-control > /dev/null && [ "${MPS:-1}" = 1 ]; then
  export CUDA_MPS_PIPE_DIRECTORY=/tmp/ltt-mps CUDA_MPS_LOG_DIRECTORY=/tmp/ltt-mps-log
  mkdir -p "$CUDA_MPS_PIPE_DIRECTORY" "$CUDA_MPS_LOG_DIRECTORY"
  if CUDA_VISIBLE_DEVICES=0 nvidia-cuda-mps-control -d; then
    step np8_mps env CUDA_VISIBLE_DEVICES=0 $mpirun -x CUDA_MPS_PIPE_DIRECTORY -np 8 $ltt check --backend cuda $(k3) --tp 8 --tokens 1,128,2048 --dist realistic
    echo quit | nvidia-cuda-mps-control
  fi
fi
echo "total $(( $(date +%s) - t0 )) s"
