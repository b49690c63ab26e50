# Thirty-fifth session, call 1 (asked for nvidia-h200): on the tree of session
# 34's stop, the build (ltt only); then, alone on the GPU, the speed figures
# the issue names (tier 0 per-rank at T 8, M 1..128; RMSNorm at M 2048 and
# 8192) and PyTorch's composition in the same call (bench/torch/compose.py,
# torch.compile, not timed last session); then the main job's M 8192
# adversarial cases (8; last run in sessions 18 and 23, before sessions 32
# and 33 narrowed the sets), to the call's deadline.
set -uo pipefail
R=$OUT/r; mkdir -p $R
export NCCL_NVLS_ENABLE=0 OMP_NUM_THREADS=8
t0=$(date +%s); end=$(( t0 + ${LTT_DEADLINE_S:-570} ))
left() { echo $(( end - $(date +%s) )); }
nvidia-smi -L | tee $R/gpu.txt
(cmake --preset release -DLTT_WITH_FUZZ=OFF -DCMAKE_CUDA_ARCHITECTURES=90 -DCMAKE_PREFIX_PATH=$PWD/.device-deps/usr > $R/build.log 2>&1 && cmake --build --preset release -j16 --target ltt >> $R/build.log 2>&1) || { grep -E "error" $R/build.log | head; tail -30 $R/build.log; exit 2; }
echo "build $(( $(date +%s) - t0 )) s; warnings: $(grep -c -i warning $R/build.log)"
L=$PWD/build/release/bin/ltt
W=$(mktemp -d)
s() {  # s NAME TIMEOUT CMD...: run (cut at the deadline), log exit code, seconds and the summary lines
  local n=$1 to=$2; shift 2
  local l=$(left); [ $l -lt $to ] && to=$l
  if [ $to -lt 5 ]; then echo "$n: not run, the deadline"; return; fi
  local a=$(date +%s)
  (cd $W && timeout -k 5 $to "$@") > $R/$n.out 2>&1
  echo "$n: exit $? $(( $(date +%s) - a )) s (limit $to): $(grep -E '^# ([0-9]+ cases|Out of)' $R/$n.out | tr '\n' ' ')"
  grep -E "FAIL|ltt:|rror:" $R/$n.out | head -4
}
s bench 70 $L bench --backend cuda --dims k3 --tp 8 --tier 0 --tokens 1,5,33,128 --json $R/bench.json
grep -E "^ +(tier0-rank|chain-read-tier0|tier0-cublas|copy) " $R/bench.out
s bench_norm 40 $L bench --backend cuda --dims k3 --tp 8 --tier 1 --tokens 2048,8192 --json $R/bench_norm.json
grep -E "^ +(rmsnorm|rmsnorm-pdl|copy-norm) " $R/bench_norm.out
s compose 120 python3 $PWD/bench/torch/compose.py --json $R/compose.json
grep -v '^\[W' $R/compose.out | head -30
s m8192_adv_t8 200 $L check --backend cuda --dims k3 --tp 8 --tokens 8192 --dist adversarial --json $R/m8192_adv_t8.json
grep -E "^ +[0-4] +8 +8192" $R/m8192_adv_t8.out | cut -c1-160
s m8192_adv_t16 200 $L check --backend cuda --dims k3 --tp 16 --tokens 8192 --dist adversarial --json $R/m8192_adv_t16.json
grep -E "^ +[0-4] +16 +8192" $R/m8192_adv_t16.out | cut -c1-160
$L --version
echo "total $(( $(date +%s) - t0 )) s"
