# Seventh session, call 3 (one H200): the warps' products stored without bank conflicts.
# The GPU entries of tier 0's few-token kernel (both forms, every plan
# forced, the refusals), then tier 0's rows at k3, T 8 and 16, with every
# plan of the kernel alone timed.
set -uo pipefail
R=$OUT/r; mkdir -p $R
t0=$(date +%s)
(cmake --preset release -DLTT_WITH_FUZZ=OFF -DCMAKE_CUDA_ARCHITECTURES=90 -DCMAKE_PREFIX_PATH=$PWD/.device-deps/usr > $R/build.log 2>&1 && cmake --build --preset release -j16 >> $R/build.log 2>&1) || { grep -E "error" $R/build.log | head; tail -30 $R/build.log; exit 2; }
echo "build $(( $(date +%s) - t0 )) s; warnings: $(grep -c -i warning $R/build.log)"
L=$PWD/build/release/bin/ltt
(cd build/release && timeout 240 ctest -R 'gpu\.tier0_gemv|gpu\.check_small$|gpu_plan' -j4 --output-on-failure > $R/ctest.log 2>&1; echo "ctest: $(grep -E 'tests passed' $R/ctest.log)"; grep -E "Failed|\*\*\*|Not Run" $R/ctest.log)
a=$(date +%s)
timeout 260 $L bench --backend cuda --dims k3 --tp 8,16 --tier 0 --tokens 1,5,16,17,33,48,64,65,96,128 --json $R/bench.json > $R/bench.log 2>&1
echo "bench: exit $? $(( $(date +%s) - a )) s"
grep -E "ltt:|rror" $R/bench.log | head -3
grep -hE "^ +(tier0-(rank|split|cublas|gemv-split|gemv-kernel[-0-9x]*)|read-tier0) " $R/bench.log | awk '{print $1, $2, $3, $4}'
# Where the cluster form's time goes: one launch (T 8, M 64, plan 4x4) under ncu.
timeout 120 env LTT_TIER0_PATH=gemv-split LTT_TIER0_GEMV_PLAN=4x4 ncu --section SpeedOfLight --section WarpStateStats --section SchedulerStats --section MemoryWorkloadAnalysis -k regex:shard_gemv_cluster -c 1 $L check --backend cuda --dims k3 --tp 8 --tier 0 --tokens 64 --dist realistic > $R/ncu_4x4_m64.log 2>&1
echo "ncu: exit $?"; grep -E "Duration|Memory Throughput|Compute \(SM\)|Stall|L2 Hit|Warp Cycles Per Issued" $R/ncu_4x4_m64.log | head -12
tar czf $OUT/r.tgz -C $OUT r
echo "total $(( $(date +%s) - t0 )) s"
