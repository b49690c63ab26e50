# Fifth session, call 6: tier 0's few-token kernel with W's rows brought into shared
# memory by bulk copies (Hopper's TMA, an mbarrier a group of 16 steps);
# checked (GPU suite, tier 0 on fake ranks both forms, sanitizers, np 8, np 2)
# and timed (tier0-gemv, -gemv-kernel: the kernel alone; ncu's duration of
# one call with the caches flushed).
set -uo pipefail
R=$OUT/r; mkdir -p $R
export NCCL_NVLS_ENABLE=0 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_NUM_THREADS=4
t0=$(date +%s)
(cmake --preset release -DLTT_WITH_FUZZ=OFF -DCMAKE_CUDA_ARCHITECTURES=90 -DCMAKE_PREFIX_PATH=$PWD/.device-deps/usr > $R/build.log 2>&1 && cmake --build --preset release -j32 >> $R/build.log 2>&1) || { grep -E "error" $R/build.log | head; tail -30 $R/build.log; exit 2; }
echo "build $(( $(date +%s) - t0 )) s; warnings: $(grep -c -i warning $R/build.log)"
L=$PWD/build/release/bin/ltt
M="mpirun --allow-run-as-root --oversubscribe --bind-to none -x NCCL_NVLS_ENABLE -x OMP_NUM_THREADS -x LTT_TIER0_PATH"
s() { local n=$1 to=$2; shift 2; local a=$(date +%s); timeout $to "$@" > $R/$n.log 2>&1; echo "$n: exit $? $(( $(date +%s) - a )) s: $(grep -E '^# ([0-9]+ cases|Out of|Mutants)|ERROR SUMMARY|hazards' $R/$n.log | sort | uniq -c | tr '\n' ' ') ident $(grep -c 'bitwise identical' $R/$n.log) differ $(grep -c 'ranks differ' $R/$n.log)"; grep -E "FAIL|ltt:|rror:" $R/$n.log | head -4; }
(export CUDA_VISIBLE_DEVICES=1
 (cd build/release && timeout 150 ctest -R '^gpu\.' -E ranks_nccl -j3 > $R/ctest_gpu.log 2>&1; echo "ctest gpu: $(grep -E 'tests passed' $R/ctest_gpu.log)"; grep -E "Failed|\*\*\*|Not Run" $R/ctest_gpu.log)
 s t0_default 90 $L check --backend cuda --dims k3 --tp 8,16 --tier 0 --tokens 1,2,5,8,9,15,16 --dist all
 LTT_TIER0_PATH=gemv s t0_gemv 60 $L check --backend cuda --dims k3 --tp 8,16 --tier 0 --tokens 1,5,9,16 --dist all
 for tool in memcheck racecheck synccheck initcheck; do
   s san_$tool 60 compute-sanitizer --tool $tool --error-exitcode 9 $L check --backend cuda --dims 512,576 --tp 8 --tier 0 --tokens 3,16 --dist realistic
   LTT_TIER0_PATH=gemv s san_gemv_$tool 60 compute-sanitizer --tool $tool --error-exitcode 9 $L check --backend cuda --dims 1024,4096 --tp 8 --tier 0 --tokens 1,13 --dist realistic
 done
 s np8_t0 60 $M -np 8 $L check --backend cuda --dims k3 --tp 8 --tier 0 --tokens 1,5,16 --dist realistic,adversarial) > $R/phase_gpu1.txt 2>&1 &
(export CUDA_VISIBLE_DEVICES=0
 s bench 100 $L bench --backend cuda --dims k3 --tp 8 --tokens 1,5,8,16 --json $R/bench.json
 s bench_t16 60 $L bench --backend cuda --dims k3 --tp 16 --tokens 1,16 --json $R/bench_t16.json
 LTT_TIER0_PATH=gemv s bench_gemv 60 $L bench --backend cuda --dims k3 --tp 8 --tokens 1,16
 s ncu_gemv 90 ncu --clock-control base -k regex:shard_gemv -c 6 --metrics gpu__time_duration.sum,dram__bytes_read.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,launch__registers_per_thread $L check --backend cuda --dims k3 --tp 8 --tier 0 --tokens 1,16 --dist realistic) > $R/phase_gpu0.txt 2>&1
wait
cat $R/phase_gpu1.txt $R/phase_gpu0.txt
s np2_t0 90 $M -np 2 $L check --backend cuda --dims k3 --tp 2,8,16 --tier 0 --tokens 1,5,9,16 --dist all
LTT_TIER0_PATH=gemv s np2_t0_gemv 60 $M -np 2 $L check --backend cuda --dims k3 --tp 2,8 --tier 0 --tokens 1,9 --dist realistic,adversarial
grep -hE "^ +(tier0-[a-z0-9-]+) " $R/bench.log $R/bench_t16.log | awk '{print $1, $2, $3, $4, $7, $8}' | grep -v "fused-c"
grep -hE "^ +tier0-all " $R/bench_gemv.log | awk '{print "gemv-forced", $1, $2, $3, $4}'
grep -E "shard_gemv|duration|dram__|registers" $R/ncu_gemv.log | head -40
tar czf $OUT/r.tgz -C $OUT r
echo "total $(( $(date +%s) - t0 )) s"
