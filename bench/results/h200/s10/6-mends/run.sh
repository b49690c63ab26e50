# Tenth session, call 6 (one H200): the review's mends. The collective's W
# prefetch taken out; programmatic launch only where the kernels were built
# for 9.0 (this build: sm_90, so it stays on: the -warm rows print only
# with it); ltt bench's fall-back rows; gpu.bench_tier0 at M 13. The tier 0
# GPU entries, tier 0 at k3, one process per rank bit for bit, tier 0's rows.
set -uo pipefail
R=$OUT/r; mkdir -p $R
export NCCL_NVLS_ENABLE=0 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_NUM_THREADS=4
t0=$(date +%s)
(cmake --preset release -DLTT_WITH_FUZZ=OFF -DCMAKE_CUDA_ARCHITECTURES=90 -DCMAKE_PREFIX_PATH=$PWD/.device-deps/usr > $R/build.log 2>&1 && cmake --build --preset release -j16 >> $R/build.log 2>&1) || { grep -E "error" $R/build.log | head; tail -30 $R/build.log; tar czf $OUT/r.tgz -C $OUT r; exit 2; }
echo "build $(( $(date +%s) - t0 )) s; warnings: $(grep -c -i warning $R/build.log)"
L=$PWD/build/release/bin/ltt
M="mpirun --allow-run-as-root --oversubscribe --bind-to none -x NCCL_NVLS_ENABLE -x OMP_NUM_THREADS"
s() { local n=$1 to=$2; shift 2; local a=$(date +%s); timeout $to "$@" > $R/$n.log 2>&1; echo "$n: exit $? $(( $(date +%s) - a )) s: $(grep -E '^# ([0-9]+ cases|Out of|Mutants)|ERROR SUMMARY|hazards|test cases' $R/$n.log | sort | uniq -c | tr '\n' ' ') ident $(grep -c 'bitwise identical' $R/$n.log) differ $(grep -c 'ranks differ' $R/$n.log)"; grep -E "FAIL|ltt:|rror:|wrong" $R/$n.log | head -4; }
(cd build/release && timeout 170 ctest -R 'gpu\.tier0_mma|gpu.tier0_gemv_split|gpu.bench|gpu.mutants|gpu.check_small|gpu_plan|gpu.mma_exact' -j4 > $R/ctest_t0.log 2>&1; echo "ctest: $(grep -E 'tests passed' $R/ctest_t0.log)"; grep -E "Failed|\*\*\*|Not Run" $R/ctest_t0.log) > $R/phase_ctest.txt 2>&1 &
(s t0_k3 120 $L check --backend cuda --dims k3 --tp 8,16 --tier 0 --tokens 1,12,13,17,64,128 --dist realistic,adversarial
 s np8_t0 100 $M -np 8 $L check --backend cuda --dims k3 --tp 8 --tier 0 --tokens 1,13,128 --dist realistic,adversarial) > $R/phase_k3.txt 2>&1 &
wait
cat $R/phase_ctest.txt $R/phase_k3.txt
s bench 100 $L bench --backend cuda --dims k3 --tp 8,16 --tier 0 --tokens 1,13,17,64,128 --json $R/bench.json
grep -E "^ +tier0-rank |^ +tier0-(gemv-split|mma)-warm " $R/bench.log
tar czf $OUT/r.tgz -C $OUT r
echo "total $(( $(date +%s) - t0 )) s"
