# Ninth session, call 1 (one H200): the tree whose last host-side changes and
# review-added tests had not run on a GPU (the eighth session's c95bbaf,
# 2f69231): the GPU suite, tier 0 at k3 by default, one process per rank;
# then a second build with CMake's LTT_MMA_TRACE (the MMA kernel stamps its
# phases) and tier 0's rows at T 8 and 16 with its timeline printed.
set -uo pipefail
R=$OUT/r; mkdir -p $R
export NCCL_NVLS_ENABLE=0 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_NUM_THREADS=4
t0=$(date +%s)
C="-DLTT_WITH_FUZZ=OFF -DCMAKE_CUDA_ARCHITECTURES=90 -DCMAKE_PREFIX_PATH=$PWD/.device-deps/usr"
(cmake --preset release $C > $R/build.log 2>&1 && cmake --build --preset release -j16 >> $R/build.log 2>&1) || { grep -E "error" $R/build.log | head; tail -30 $R/build.log; tar czf $OUT/r.tgz -C $OUT r; exit 2; }
echo "build $(( $(date +%s) - t0 )) s; warnings: $(grep -c -i warning $R/build.log); ptxas infos: $(grep -c 'ptxas info' $R/build.log)"
(cmake -S . -B build/trace -DCMAKE_BUILD_TYPE=Release -DLTT_MMA_TRACE=ON $C > $R/build_trace.log 2>&1 && cmake --build build/trace --target ltt -j6 >> $R/build_trace.log 2>&1; echo "trace build exit $?") > $R/phase_trace_build.txt 2>&1 &
L=$PWD/build/release/bin/ltt
M="mpirun --allow-run-as-root --oversubscribe --bind-to none -x NCCL_NVLS_ENABLE -x OMP_NUM_THREADS"
s() { local n=$1 to=$2; shift 2; local a=$(date +%s); timeout $to "$@" > $R/$n.log 2>&1; echo "$n: exit $? $(( $(date +%s) - a )) s: $(grep -E '^# ([0-9]+ cases|Out of|Mutants)|ERROR SUMMARY|hazards' $R/$n.log | sort | uniq -c | tr '\n' ' ') ident $(grep -c 'bitwise identical' $R/$n.log) differ $(grep -c 'ranks differ' $R/$n.log)"; grep -E "FAIL|ltt:|rror:" $R/$n.log | head -4; }
(cd build/release && timeout 300 ctest -R '^gpu\.|python' -E 'ranks_' -j4 > $R/ctest_gpu.log 2>&1; echo "ctest gpu: $(grep -E 'tests passed' $R/ctest_gpu.log)"; grep -E "Failed|\*\*\*|Not Run" $R/ctest_gpu.log) > $R/phase_ctest.txt 2>&1 &
(s t0_k3 200 $L check --backend cuda --dims k3 --tp 8,16 --tier 0 --tokens 1,5,16,17,33,48,64,65,90,96,97,112,128 --dist all --json $R/t0_k3.json
 s np8_t0 150 $M -np 8 $L check --backend cuda --dims k3 --tp 8 --tier 0 --tokens 1,17,64,96,128 --dist realistic,adversarial) > $R/phase_k3.txt 2>&1 &
wait
cat $R/phase_ctest.txt $R/phase_k3.txt $R/phase_trace_build.txt
(cd build/release && timeout 100 ctest -R 'gpu.ranks' > $R/ctest_ranks.log 2>&1; echo "ctest gpu.ranks*: $(grep -E 'tests passed' $R/ctest_ranks.log)"; grep -E "Failed|\*\*\*|Not Run" $R/ctest_ranks.log)
s trace 150 build/trace/bin/ltt bench --backend cuda --dims k3 --tp 8,16 --tier 0 --tokens 17,64,128
grep -E "^# (tier0-mma|  )" $R/trace.log | head -120
grep -hE "^ +(tier0-(rank|mma|mma-kernel)|read-tier0) " $R/trace.log | awk '{print $1, $2, $3, $4}'
tar czf $OUT/r.tgz -C $OUT r
echo "total $(( $(date +%s) - t0 )) s"
