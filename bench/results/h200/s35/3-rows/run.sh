# Thirty-fifth session, call 3 (asked for nvidia-h200): the row check
# (reference/admissible_rows.cpp, failed check admissible-row) on the GPU's
# outputs. An order probe's row is where it judges, so the adversarial cases:
# the main job's (k3, T 8 and 16, M 1 .. 2048, every tier), its M 8192 at
# T 8; PyTorch's own ops on the GPU computing every tier (torch_tiers.py,
# judged by ltt verify, with its planted bugs); the cuda mutants; then the
# whole suite by the README's GPU-machine command, to the deadline.
set -uo pipefail
R=$(mktemp -d)/r; mkdir -p $R  # tarred into $OUT at the end (a call's files that come back are few)
trap 'tar czf $OUT/r.tgz -C $(dirname $R) r' EXIT
export NCCL_NVLS_ENABLE=0 OMP_NUM_THREADS=8
t0=$(date +%s); end=$(( t0 + ${LTT_DEADLINE_S:-560} ))
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
s main_adv 200 $L check --backend cuda --dims k3 --tp 8,16 --tokens 1,5,33,128,256,257,2048 --dist adversarial --json main_adv.json
rows main_adv.json
s torch_T8 150 python3 $ROOT/scripts/torch_tiers.py --ltt $L --work $W/tt8 --dims k3 --tp 8 --tokens 5,33,128 --dist adversarial --device cuda --gemm bf16 --json $R/torch_T8.json --out $R/torch_T8.md
s mutants_cuda 100 $L mutants --backend cuda --dims small --tp 8,16 --tokens 5,33 --dist adversarial --json mu.json
s m8192_adv_t8 150 $L check --backend cuda --dims k3 --tp 8 --tokens 8192 --dist adversarial --json m8192.json
rows m8192.json
s suite 200 env OMP_NUM_THREADS=2 $ROOT/scripts/ctest-gpu-host.sh -j8
grep -E "tests passed|tests failed|\(Failed\)|Timeout" $R/suite.out | head
(cd $W && cp *.json $R/ 2>/dev/null)
$L --version
echo "total $(( $(date +%s) - t0 )) s"
