#!/usr/bin/env bash
# On the two-GPU machine, after scripts/h200-ranks.sh (same build): the
# figures. Logs and JSON go to $OUT/b and come back as $OUT/b.tgz.
#   - ltt bench on one GPU (fake ranks): RMSNorm, tier 0's per-rank compute
#     (ltt's and the cuBLAS composition), the GEMMs, every tier end to end;
#   - bench/torch/compose.py: PyTorch's eager ops and torch.compile of the same steps;
#   - ltt bench over the two GPUs (mpirun -np 2): tiers over real ranks, tier
#     0 against its unfused NCCL composition, all-reduce bus bandwidth;
#   - one process per rank on one GPU under the MPS daemon;
#   - compute-sanitizer on small fake-rank cases of every tier;
#   - the Python example (PyTorch's tier 1 judged by ltt) with pytest.
set -uo pipefail
cd "$(dirname "$0")/.."
B=${OUT:-/tmp/ltt-out}/b
mkdir -p "$B"
export NCCL_NVLS_ENABLE=0 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_NUM_THREADS=8
t0=$(date +%s)
L=$PWD/build/release/bin/ltt
M="mpirun --allow-run-as-root --oversubscribe -x NCCL_NVLS_ENABLE -x OMP_NUM_THREADS"
step() {
  local n=$1 to=$2; shift 2
  local a=$(date +%s)
  timeout "$to" "$@" > "$B/$n.log" 2>&1
  local rc=$?
  echo "$n: exit $rc, $(( $(date +%s) - a )) s: $(grep -E '^# ([0-9]+ cases|Out of)|passed|failed' "$B/$n.log" | tail -2 | tr '\n' ' ')"
  [ $rc -ne 0 ] && grep -E "FAIL|ltt:|rror" "$B/$n.log" | head -6
  return 0
}
export CUDA_VISIBLE_DEVICES=0
step bench1 150 "$L" bench --backend cuda --dims k3 --tp 8 --tokens 1,5,33,128,256,2048,8192 --json "$B/bench1.json"
step compose 120 python3 bench/torch/compose.py --json "$B/compose.json"
unset CUDA_VISIBLE_DEVICES
step bench2 200 $M -np 2 "$L" bench --backend cuda --dims k3 --tp 2,8,16 --tokens 1,5,33,128,256,2048 --json "$B/bench2.json"
if command -v nvidia-cuda-mps-control > /dev/null; then
  export CUDA_MPS_PIPE_DIRECTORY=/tmp/ltt-mps CUDA_MPS_LOG_DIRECTORY=/tmp/ltt-mps-log
  mkdir -p "$CUDA_MPS_PIPE_DIRECTORY" "$CUDA_MPS_LOG_DIRECTORY"
  if CUDA_VISIBLE_DEVICES=0 nvidia-cuda-mps-control -d; then
    step np8_mps 120 env CUDA_VISIBLE_DEVICES=0 $M -x CUDA_MPS_PIPE_DIRECTORY -x CUDA_VISIBLE_DEVICES -np 8 "$L" check --backend cuda --dims k3 --tp 8 \
      --tokens 1,128,2048 --dist realistic
    echo quit | nvidia-cuda-mps-control
  fi
  unset CUDA_MPS_PIPE_DIRECTORY CUDA_MPS_LOG_DIRECTORY
fi
export CUDA_VISIBLE_DEVICES=0
if command -v compute-sanitizer > /dev/null; then
  for tool in memcheck racecheck synccheck initcheck; do
    step "sanitizer_$tool" 120 compute-sanitizer --tool "$tool" --error-exitcode 9 "$L" check --backend cuda --dims small --tp 8 \
      --tokens 5,33 --dist realistic
  done
fi
step pytest 120 env LTT="$L" PYTHONPATH=python python3 -m pytest -q python/examples
tar czf "$B.tgz" -C "$(dirname "$B")" b
echo "total $(( $(date +%s) - t0 )) s"
