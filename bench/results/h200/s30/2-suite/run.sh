# Thirtieth session, call 2 (one H200): the new users' fixes (the worst
# member's row, the claim before every refusal, one command per mpirun
# process, report paths) on the GPU: the build, the whole suite by the
# README's GPU-machine command, and the GPU paths they touch.
set -uo pipefail
R=$OUT/r; mkdir -p $R
export NCCL_NVLS_ENABLE=0 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
t0=$(date +%s)
(cmake --preset release -DLTT_WITH_FUZZ=OFF -DCMAKE_CUDA_ARCHITECTURES=90 -DCMAKE_PREFIX_PATH=$PWD/.device-deps/usr > $R/build.log 2>&1 && cmake --build --preset release -j16 >> $R/build.log 2>&1) || { grep -E "error" $R/build.log | head; tail -30 $R/build.log; tar czf $OUT/r.tgz -C $OUT r; exit 2; }
echo "build $(( $(date +%s) - t0 )) s; warnings: $(grep -c -i warning $R/build.log); cmake $(cmake --version | head -1)"
a=$(date +%s); OMP_NUM_THREADS=2 timeout 300 scripts/ctest-gpu-host.sh -j8 > $R/ctest_all.log 2>&1; echo "ctest-gpu-host, whole suite: exit $? $(( $(date +%s) - a )) s"
grep -E "tests passed|tests failed|ctest-gpu-host|\(Failed\)|Timeout" $R/ctest_all.log
L=$PWD/build/release/bin/ltt
W=$(mktemp -d); cd $W
t() {  # t NAME TIMEOUT CMD...: run, log exit code, seconds and the output's tail
  local name=$1 to=$2; shift 2
  local a=$(date +%s)
  timeout -k 5 $to "$@" > $R/$name.out 2>&1; local rc=$?
  { echo "=== $name: $*"; echo "--- exit $rc, $(( $(date +%s) - a )) s"; tail -n 8 $R/$name.out; } >> $R/audit.log
}
S="--dims small"
t mutants_cuda 300 $L mutants --backend cuda $S --tp 8,16 --tokens 5,33 --json mu.json
t mu_pass 10 python3 -c "import json; j=json.load(open('mu.json')); print('pass', j['pass'], j['caught'], 'of', j['of'])"
t gemm_split 200 $L check --backend cuda $S --tp 8 --tokens 1,129 --tier 1,3 --dist realistic,adversarial --gemm-algos split-k
t gemm_mutant 200 $L check --backend cuda $S --tp 8 --tokens 129 --tier 1 --dist realistic --gemm-algos listed --mutant eps-x10
t np2_ipc 200 mpirun -np 2 $L check --backend cuda $S --tp 8 --tokens 1,129,2048 --dist realistic --json np2.json
t np2_ab 90 mpirun -np 1 $L check --backend cuda $S --tp 8 --tokens 5 --timeout 10 : -np 1 $L check --backend cuda $S --tp 8 --tokens 33 --timeout 10
t np2_inv 90 mpirun -np 1 $L check --backend cuda $S --tp 8 --tokens 5 --timeout 10 : -np 1 $L check --invariance $S --tp 8 --tokens 5
t fake_transport 30 $L check --backend cuda $S --tp 8 --tokens 5 --transport ipc
t bench_small 120 $L bench $S --tp 8 --tokens 1,129 --reps 5
t main_k3 400 $L check --backend cuda --dims k3 --tp 8,16 --tokens 1,33,257,2048 --dist realistic,adversarial
cp mu.json np2.json $R/ 2>/dev/null
$L --version
echo "total $(( $(date +%s) - t0 )) s"
cut -c1-250 $R/audit.log | head -c 9000
tar czf $OUT/r.tgz -C $OUT r
