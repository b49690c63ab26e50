# Eleventh session, call 3 (one H200): the final tree, second half. One
# process per rank on one GPU (mpirun -np 8, k3, T 8, bit for bit against
# fake ranks); M 8192 on fake ranks; the gpu.ranks entries; ltt bench's
# tier 0 and RMSNorm rows.
set -uo pipefail
R=$OUT/r; mkdir -p $R
export NCCL_NVLS_ENABLE=0 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_NUM_THREADS=4
t0=$(date +%s)
(cmake --preset release -DLTT_WITH_FUZZ=OFF -DCMAKE_CUDA_ARCHITECTURES=90 -DCMAKE_PREFIX_PATH=$PWD/.device-deps/usr > $R/build.log 2>&1 && cmake --build --preset release -j16 >> $R/build.log 2>&1) || { grep -E "error" $R/build.log | head; tail -30 $R/build.log; tar czf $OUT/r.tgz -C $OUT r; exit 2; }
echo "build $(( $(date +%s) - t0 )) s; warnings: $(grep -c -i warning $R/build.log)"
L=$PWD/build/release/bin/ltt
M="mpirun --allow-run-as-root --oversubscribe --bind-to none -x NCCL_NVLS_ENABLE -x OMP_NUM_THREADS"
s() { local n=$1 to=$2; shift 2; local a=$(date +%s); timeout $to "$@" > $R/$n.log 2>&1; echo "$n: exit $? $(( $(date +%s) - a )) s: $(grep -E '^# ([0-9]+ cases|Out of)' $R/$n.log | sort | uniq -c | tr '\n' ' ') ident $(grep -c 'bitwise identical' $R/$n.log) differ $(grep -c 'ranks differ' $R/$n.log)"; grep -E "FAIL|ltt:|rror:|wrong" $R/$n.log | head -4; }
s np8_k3 280 $M -np 8 $L check --backend cuda --dims k3 --tp 8 --tokens 1,5,33,128,256,257,2048 --dist realistic,adversarial --json $R/np8_k3.json
(cd build/release && timeout 60 ctest -R 'gpu.ranks' > $R/ctest_ranks.log 2>&1; echo "ctest gpu.ranks*: $(grep -E 'tests passed' $R/ctest_ranks.log)"; grep -E "Failed|\*\*\*|Not Run" $R/ctest_ranks.log)
OMP_NUM_THREADS=16 s main_8192 150 $L check --backend cuda --dims k3 --tp 8 --tokens 8192 --dist realistic --json $R/main_8192.json
s bench 120 $L bench --backend cuda --dims k3 --tp 8,16 --tier 0 --tokens 1,5,33,128 --json $R/bench.json
grep -E "^ +tier0-rank " $R/bench.log
s bench_norm 60 $L bench --backend cuda --dims k3 --tp 8 --tier 1 --tokens 2048 --json $R/bench_norm.json
grep -E "^ +(rmsnorm|rmsnorm-pdl|copy-norm|gemm-full) " $R/bench_norm.log
tar czf $OUT/r.tgz -C $OUT r
echo "total $(( $(date +%s) - t0 )) s"
