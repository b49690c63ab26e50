# Thirty-fourth session, call 1: session 33's prepared call (bench/results/h200/s33/1-all/run.sh), run as
#   LTT_DEADLINE_S=560 OUT=$OUT bash bench/results/h200/s33/1-all/run.sh
# on the tree below. The machine lent was an H100 80GB HBM3 (r/gpu.txt), not an H200.
# Thirty-third session, call 1 (one GPU; machines were scarce, so one call
# holds it all, each step cut at a deadline, 480 s from the start unless LTT_DEADLINE_S says): the whole
# build; NCCL asked of two processes on one GPU (refused before any case,
# session 31's change); the whole suite by the README's GPU-machine command;
# the main job (exact inputs first, then the rest, to the deadline) on the tree whose admissible sets session 32 narrowed
# (exact inputs: a sum of squares every order computes exactly has no
# width); the cuda mutants; bench --machine-out's statement of its fit.
set -uo pipefail
R=$OUT/r; mkdir -p $R
export NCCL_NVLS_ENABLE=0 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
t0=$(date +%s); end=$(( t0 + ${LTT_DEADLINE_S:-480} ))
left() { echo $(( end - $(date +%s) )); }
nvidia-smi -L > $R/gpu.txt 2>&1; cat $R/gpu.txt
(cmake --preset release -DLTT_WITH_FUZZ=OFF -DCMAKE_CUDA_ARCHITECTURES=90 -DCMAKE_PREFIX_PATH=$PWD/.device-deps/usr > $R/build.log 2>&1 && cmake --build --preset release -j16 >> $R/build.log 2>&1) || { grep -E "error" $R/build.log | head; tail -30 $R/build.log; tar czf $OUT/r.tgz -C $OUT r; exit 2; }
echo "build $(( $(date +%s) - t0 )) s; warnings: $(grep -c -i warning $R/build.log); $(cmake --version | head -1)"
L=$PWD/build/release/bin/ltt
W=$(mktemp -d)
t() {  # t NAME TIMEOUT CMD...: run (cut at the deadline), log exit code, seconds and the output's tail
  local name=$1 to=$2; shift 2
  local l=$(left); [ $l -lt $to ] && to=$l
  if [ $to -lt 5 ]; then echo "=== $name: not run, the deadline" >> $R/audit.log; return; fi
  local a=$(date +%s)
  (cd $W && timeout -k 5 $to "$@") > $R/$name.out 2>&1; local rc=$?
  { echo "=== $name: $*"; echo "--- exit $rc, $(( $(date +%s) - a )) s (limit $to)"; tail -n 10 $R/$name.out; } >> $R/audit.log
}
S="--dims small"
t np2_nccl_1gpu 60 mpirun -np 2 $L check --backend cuda $S --tp 2,8 --tokens 1 --transport nccl
K3="--backend cuda --dims k3 --tp 8,16 --tokens 1,5,33,128,256,257,2048"
t main_exact 150 $L check $K3 --dist exact --json exact.json
t suite 170 env OMP_NUM_THREADS=2 $PWD/scripts/ctest-gpu-host.sh -j8
grep -E "tests passed|tests failed|ctest-gpu-host|\(Failed\)|Timeout" $R/suite.out
t main_rest 420 $L check $K3 --dist realistic,adversarial --json main.json
t mutants_cuda 120 $L mutants --backend cuda $S --tp 8,16 --tokens 5,33 --dist all --json mu.json
t bench_mout 90 $L bench --backend cuda --dims k3 --tp 8 --tokens 1,5,33,128,256,2048 --reps 5 --machine-out m.json --json b.json
(cd $W && cp exact.json main.json mu.json m.json b.json $R/ 2>/dev/null)
$L --version
echo "total $(( $(date +%s) - t0 )) s"
cut -c1-300 $R/audit.log | head -c 10000
tar czf $OUT/r.tgz -C $OUT r
