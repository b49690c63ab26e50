# Eleventh session, call 4 (one H200): the staged form for N given (the
# pipeline's gemv-split path up to 8 tokens: 64 registers, 2 blocks an SM,
# so that the next call's step kernel loads W under this one). Its bits
# against the register form's, tier 0 by default at k3 and in one process
# per rank, then the tier 0 rows with it on and off (LTT_TIER0_GEMV_STAGED=0).
set -uo pipefail
R=$OUT/r; mkdir -p $R
export NCCL_NVLS_ENABLE=0 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_NUM_THREADS=4
t0=$(date +%s)
(cmake --preset release -DLTT_WITH_FUZZ=OFF -DCMAKE_CUDA_ARCHITECTURES=90 -DCMAKE_PREFIX_PATH=$PWD/.device-deps/usr > $R/build.log 2>&1 && cmake --build --preset release -j16 >> $R/build.log 2>&1) || { grep -E "error" $R/build.log | head; tail -30 $R/build.log; tar czf $OUT/r.tgz -C $OUT r; exit 2; }
echo "build $(( $(date +%s) - t0 )) s; warnings: $(grep -c -i warning $R/build.log)"
L=$PWD/build/release/bin/ltt
M="mpirun --allow-run-as-root --oversubscribe --bind-to none -x NCCL_NVLS_ENABLE -x OMP_NUM_THREADS"
s() { local n=$1 to=$2; shift 2; local a=$(date +%s); timeout $to "$@" > $R/$n.log 2>&1; echo "$n: exit $? $(( $(date +%s) - a )) s: $(grep -E '^# ([0-9]+ cases|Out of)|ERROR SUMMARY|hazards|shapes bitwise' $R/$n.log | sort | uniq -c | tr '\n' ' ') ident $(grep -c 'bitwise identical' $R/$n.log) differ $(grep -c 'ranks differ' $R/$n.log)"; grep -E "FAIL|ltt:|rror:|wrong|differ at" $R/$n.log | head -4; }
s staged_bits 60 build/release/bin/ltt_tests --test-case='gpu_gemv:*' --no-version
(cd build/release && timeout 120 ctest -R 'gpu.tier0_gemv_split|gpu.bench_tier0|gpu.check_small' -j4 > $R/ctest.log 2>&1; echo "ctest: $(grep -E 'tests passed' $R/ctest.log)"; grep -E "Failed|\*\*\*|Not Run" $R/ctest.log) > $R/phase_ctest.txt 2>&1 &
(s t0_k3 100 $L check --backend cuda --dims k3 --tp 8,16 --tier 0 --tokens 1,5,8,9 --dist all
 s np8_t0 60 $M -np 8 $L check --backend cuda --dims k3 --tp 8 --tier 0 --tokens 1,8 --dist realistic,adversarial
 s san_racecheck 60 compute-sanitizer --tool racecheck --error-exitcode 9 $L check --backend cuda --dims 1024,512 --tp 8 --tier 0 --tokens 1,8 --dist realistic
 s san_memcheck 60 compute-sanitizer --tool memcheck --error-exitcode 9 $L check --backend cuda --dims 1024,512 --tp 8 --tier 0 --tokens 1,8 --dist realistic) > $R/phase_k3.txt 2>&1 &
wait
cat $R/phase_ctest.txt $R/phase_k3.txt
for st in 1 0; do
  LTT_TIER0_GEMV_STAGED=$st s bench_staged$st 100 $L bench --backend cuda --dims k3 --tp 8,16 --tier 0 --tokens 1,2,5,8 --json $R/bench_staged$st.json
  grep -E "^ +tier0-(rank|gemv-split|gemv-split-warm|gemv-kernel) " $R/bench_staged$st.log
done
tar czf $OUT/r.tgz -C $OUT r
echo "total $(( $(date +%s) - t0 )) s"
