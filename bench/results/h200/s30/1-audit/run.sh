# Thirtieth session, call 1 (one H200): the GPU paths as a new user meets
# them -- no device, bad input to bench, P not dividing T, NCCL or symmetric
# windows asked of two ranks on one GPU, a hang injected, two processes on the
# GPU at once, a planted bug's reports, cuBLASLt's algorithms -- each command
# with its exit code and the tail of its output in audit.log.
set -uo pipefail
R=$OUT/r; mkdir -p $R
export NCCL_NVLS_ENABLE=0 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_NUM_THREADS=4
t0=$(date +%s)
(cmake --preset release -DLTT_WITH_FUZZ=OFF -DCMAKE_CUDA_ARCHITECTURES=90 -DCMAKE_PREFIX_PATH=$PWD/.device-deps/usr > $R/build.log 2>&1 && cmake --build --preset release -j16 --target ltt >> $R/build.log 2>&1) || { tail -30 $R/build.log; tar czf $OUT/r.tgz -C $OUT r; exit 2; }
echo "build $(( $(date +%s) - t0 )) s; warnings: $(grep -c -i warning $R/build.log)"
L=$PWD/build/release/bin/ltt
W=$(mktemp -d); cd $W
t() {  # t NAME TIMEOUT CMD...: run, log exit code, seconds and the output's tail
  local name=$1 to=$2; shift 2
  local a=$(date +%s)
  timeout -k 5 $to "$@" > $R/$name.out 2>&1; local rc=$?
  { echo "=== $name: $*"; echo "--- exit $rc, $(( $(date +%s) - a )) s"; tail -n 14 $R/$name.out; } >> $R/audit.log
}
S="--dims small"
t nodev 60 env CUDA_VISIBLE_DEVICES= $L check --backend cuda $S --tp 8 --tokens 1
t nodev_bench 60 env CUDA_VISIBLE_DEVICES= $L bench $S --tp 8 --tokens 1
t bench_small 200 $L bench $S --tp 8,16 --tokens 1,5,129 --reps 5 --json bench.json
t bench_json 10 python3 -c "import json; j=json.load(open('bench.json')); print(list(j)[:12]); print(len(json.dumps(j)))"
t bench_tok0 30 $L bench $S --tp 8 --tokens 0
t bench_tp3 60 $L bench $S --tp 3 --tokens 1
t bench_tp1 60 $L bench $S --tp 1 --tokens 1 --reps 3
t bench_reps0 30 $L bench $S --tp 8 --tokens 1 --reps 0
t bench_tier9 30 $L bench $S --tp 8 --tokens 1 --tier 9
t bench_cpu 30 $L bench --backend cpu $S --tp 8 --tokens 1
t bench_mout_small 120 $L bench $S --tp 8 --tokens 1,5 --reps 3 --machine-out m.json
t bench_odd_dims 120 $L bench --dims 200,100 --tp 8 --tokens 1,3 --reps 3
t check_odd_dims 120 $L check --backend cuda --dims 200,100 --tp 8,16 --tokens 1,3,129 --dist all
t check_tiny_dims 120 $L check --backend cuda --dims 8,2 --tp 8 --tokens 1,7 --dist all
t np3 60 mpirun --oversubscribe -np 3 $L check --backend cuda $S --tp 8 --tokens 1
t np2_nccl_1gpu 90 mpirun -np 2 $L check --backend cuda $S --tp 2 --tokens 1 --transport nccl
t np2_sym_1gpu 90 mpirun -np 2 $L check --backend cuda $S --tp 2 --tokens 1 --peer-memory nccl
t np2_ipc 120 mpirun -np 2 $L check --backend cuda $S --tp 8 --tokens 1,129 --dist realistic
t np2_bench 200 mpirun -np 2 $L bench $S --tp 8 --tokens 1,129 --reps 3
t np2_bench_sym 90 mpirun -np 2 $L bench $S --tp 2 --tokens 1 --reps 3 --peer-memory nccl
t hang 90 $L check --backend cuda $S --tp 8 --tokens 5 --tier 1 --inject hang --inject-rank 3 --timeout 10
t crash 90 $L check --backend cuda $S --tp 8 --tokens 5 --tier 1 --inject crash --inject-rank 3 --timeout 10
t hang_np2 120 mpirun -np 2 $L check --backend cuda $S --tp 8 --tokens 5 --tier 1 --inject hang --inject-rank 5 --timeout 10
t plant 120 $L check --backend cuda $S --tp 8 --tokens 5,33 --plant shard-off-by-one --json p.json --markdown p.md --html p.html --dump-dir dump
t plant_files 10 sh -c "python3 -c \"import json; j=json.load(open('p.json')); print([(c['tier'], c['pass'], c['failed_checks']) for c in j['cases']][:8], j.get('finished'))\"; grep -c FAIL p.md; ls -la dump | head; wc -c p.html"
t two_procs 200 sh -c "($L check --backend cuda $S --tp 8,16 --tokens 1,5,33,129 > a.log 2>&1; echo a \$?) & ($L check --backend cuda $S --tp 8,16 --tokens 1,5,33,129 > b.log 2>&1; echo b \$?) & wait; tail -2 a.log b.log"
t gemm_algos 300 $L check --backend cuda $S --tp 8 --tokens 1,129 --tier 1,3 --dist realistic --gemm-algos split-k
t mutants_cuda 300 $L mutants --backend cuda $S --tp 8 --tokens 5,33 --json mu.json
t mutant_bad 30 $L check --backend cuda $S --tp 8 --tokens 5 --mutant no-such-bug
t variant_cuda 30 $L check --backend cuda $S --tp 8 --tokens 5 --variant 3
t selftest 200 $L selftest
cp -r dump $R/ 2>/dev/null; cp p.json p.md bench.json mu.json $R/ 2>/dev/null
echo "total $(( $(date +%s) - t0 )) s"
cat $R/audit.log | cut -c1-300 | head -c 11000
tar czf $OUT/r.tgz -C $OUT r
