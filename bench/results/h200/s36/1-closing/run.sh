# Thirty-sixth session, call 1 (asked for nvidia-h200): the closing tree of
# session 35 (the row check with its review's mends, 13d3e39, never run on a
# GPU; with 1c788ea and 5d4aa42, two refactors: the weights shared between
# tiers, min_square) on the GPU's outputs.
# Build everything; if the card is an H200, first
# the speed figures the issue names (tier 0 per-rank at T 8, M 1..128;
# RMSNorm at M 2048 and 8192) and PyTorch's composition with every output
# kept (compose.py as of 687290c, never run on an H200); then the main job's
# adversarial cases with the row check, PyTorch's own tiers (fp32 GEMMs,
# members; and their planted bugs), the cuda mutants and the whole suite by
# the README's GPU-machine command, to the deadline.
set -uo pipefail
R=$(mktemp -d)/r; mkdir -p $R  # tarred into $OUT at the end (a call's files that come back are few)
trap 'tar czf $OUT/r.tgz -C $(dirname $R) r' EXIT
export NCCL_NVLS_ENABLE=0 OMP_NUM_THREADS=8
t0=$(date +%s); end=$(( t0 + ${LTT_DEADLINE_S:-570} ))
left() { echo $(( end - $(date +%s) )); }
nvidia-smi -L | tee $R/gpu.txt
git log -1 --format=%H 2>/dev/null > $R/tree.txt
(cmake --preset release -DLTT_WITH_FUZZ=OFF -DCMAKE_CUDA_ARCHITECTURES=90 -DCMAKE_PREFIX_PATH=$PWD/.device-deps/usr > $R/build.log 2>&1 && cmake --build --preset release -j16 >> $R/build.log 2>&1) || { grep -E "error" $R/build.log | head; tail -30 $R/build.log; exit 2; }
echo "build $(( $(date +%s) - t0 )) s; warnings: $(grep -c -i warning $R/build.log)"
ROOT=$PWD; L=$ROOT/build/release/bin/ltt
W=$(mktemp -d)
s() {  # s NAME TIMEOUT CMD...: run (cut at the deadline), log exit code, seconds and the summary lines
  local n=$1 to=$2; shift 2
  local l=$(left); [ $l -lt $to ] && to=$l
  if [ $to -lt 5 ]; then echo "$n: not run, the deadline"; return; fi
  local a=$(date +%s)
  (cd $W && timeout -k 5 $to "$@") > $R/$n.out 2>&1
  echo "$n: exit $? $(( $(date +%s) - a )) s (limit $to): $(grep -E '^# ([0-9]+ cases|Out of|Mutants)|^# correct outputs|^!!!' $R/$n.out | tr '\n' ' ')"
  grep -E "FAIL|ltt:|rror:|admissible-row" $R/$n.out | grep -v elapsed | head -6
}
rows() { python3 -c "
import json,sys
d=json.load(open('$W/'+sys.argv[1]))
cs=d['cases']; print(sys.argv[1]+':', len(cs), 'cases,', sum(not c['pass'] for c in cs), 'failed;', sum(c['admissible'].get('rows_checked',0) for c in cs), 'rows checked,', sum(c['admissible'].get('rows_outside',0) for c in cs), 'outside')" $1; }
if grep -q H200 $R/gpu.txt; then
  s bench 70 $L bench --backend cuda --dims k3 --tp 8 --tier 0 --tokens 1,5,33,128 --json $R/bench.json
  grep -E "^ +(tier0-rank|chain-read-tier0|tier0-cublas|copy) " $R/bench.out
  s bench_norm 40 $L bench --backend cuda --dims k3 --tp 8 --tier 1 --tokens 2048,8192 --json $R/bench_norm.json
  grep -E "^ +(rmsnorm|rmsnorm-pdl|copy-norm) " $R/bench_norm.out
  s compose 120 python3 $ROOT/bench/torch/compose.py --json $R/compose.json
  grep -v '^\[W' $R/compose.out | head -30
else
  echo "not an H200: the speed figures are not taken (the H100's were taken in session 35)"
fi
s main_adv 200 $L check --backend cuda --dims k3 --tp 8,16 --tokens 1,5,33,128,256,257,2048 --dist adversarial --json main_adv.json
rows main_adv.json
s torch_T8 120 python3 $ROOT/scripts/torch_tiers.py --ltt $L --work $W/tt8 --dims k3 --tp 8 --tokens 5,33,128 --dist adversarial --device cuda --gemm fp32 --json $R/torch_T8.json --out $R/torch_T8.md
s mutants_cuda 100 $L mutants --backend cuda --dims small --tp 8,16 --tokens 5,33 --dist adversarial --json mu.json
s suite 200 env OMP_NUM_THREADS=2 $ROOT/scripts/ctest-gpu-host.sh -j8
grep -E "tests passed|tests failed|\(Failed\)|Timeout" $R/suite.out | head
(cd $W && cp *.json $R/ 2>/dev/null)
$L --version
echo "total $(( $(date +%s) - t0 )) s"
