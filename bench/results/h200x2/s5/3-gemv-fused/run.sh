# Fifth session, call 3: tier 0's few-token kernel normalising itself (the
# pipeline's path up to 16 tokens) checked and timed, its split form forced;
# then tier 0 across the two GPUs, and the rest of the multi-GPU issue's
# list at T 2 (every tier, ipc and NCCL, M 1 .. 2048, all distributions).
set -uo pipefail
R=$OUT/r; mkdir -p $R
export NCCL_NVLS_ENABLE=0 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_NUM_THREADS=4
t0=$(date +%s)
(cmake --preset release -DLTT_WITH_FUZZ=OFF -DCMAKE_CUDA_ARCHITECTURES=90 -DCMAKE_PREFIX_PATH=$PWD/.device-deps/usr > $R/build.log 2>&1 && cmake --build --preset release -j32 >> $R/build.log 2>&1) || { grep -E "error" $R/build.log | head; tail -30 $R/build.log; exit 2; }
echo "build $(( $(date +%s) - t0 )) s; warnings: $(grep -c -i warning $R/build.log)"
L=$PWD/build/release/bin/ltt
M="mpirun --allow-run-as-root --oversubscribe --bind-to none -x NCCL_NVLS_ENABLE -x OMP_NUM_THREADS -x LTT_TIER0_PATH"
s() { local n=$1 to=$2; shift 2; local a=$(date +%s); timeout $to "$@" > $R/$n.log 2>&1; echo "$n: exit $? $(( $(date +%s) - a )) s: $(grep -E '^# ([0-9]+ cases|Out of|Mutants)|ERROR SUMMARY|hazards' $R/$n.log | sort | uniq -c | tr '\n' ' ') ident $(grep -c 'bitwise identical' $R/$n.log) differ $(grep -c 'ranks differ' $R/$n.log)"; grep -E "FAIL|ltt:|rror:" $R/$n.log | head -4; }
export -f s; export R L M
# GPU 1: checks
(export CUDA_VISIBLE_DEVICES=1
 (cd build/release && timeout 150 ctest -R '^gpu\.' -E ranks_nccl -j3 > $R/ctest_gpu.log 2>&1; echo "ctest gpu: $(grep -E 'tests passed' $R/ctest_gpu.log)"; grep -E "Failed|\*\*\*|Not Run" $R/ctest_gpu.log)
 s t0_default 90 $L check --backend cuda --dims k3 --tp 8,16 --tier 0 --tokens 1,2,5,8,9,15,16,17,33 --dist all
 LTT_TIER0_PATH=gemv-split s t0_gemv_split 60 $L check --backend cuda --dims k3 --tp 8,16 --tier 0 --tokens 1,5,9,16 --dist all
 for tool in memcheck racecheck synccheck initcheck; do
   LTT_TIER0_PATH=gemv s san_$tool 60 compute-sanitizer --tool $tool --error-exitcode 9 $L check --backend cuda --dims 512,576 --tp 8 --tier 0 --tokens 3,16 --dist realistic
 done
 s np8_t0 60 $M -np 8 $L check --backend cuda --dims k3 --tp 8 --tier 0 --tokens 1,5,16 --dist realistic,adversarial) > $R/phase_gpu1.txt 2>&1 &
# GPU 0: the benchmark, then the whole tiers with the split form forced
(export CUDA_VISIBLE_DEVICES=0
 s bench 150 $L bench --backend cuda --dims k3 --tp 8 --tokens 1,5,8,16,33 --json $R/bench.json
 s bench_t16 60 $L bench --backend cuda --dims k3 --tp 16 --tokens 1,16 --json $R/bench_t16.json
 LTT_TIER0_PATH=gemv-split s bench_gemv_split 60 $L bench --backend cuda --dims k3 --tp 8 --tokens 1,16) > $R/phase_gpu0.txt 2>&1
wait
cat $R/phase_gpu1.txt $R/phase_gpu0.txt
# both GPUs: tier 0 across them; then T 2 (one rank a GPU), every tier, ipc and NCCL
s np2_t0 100 $M -np 2 $L check --backend cuda --dims k3 --tp 2,8,16 --tier 0 --tokens 1,5,9,16 --dist all
(cd build/release && timeout 60 ctest -R 'gpu.ranks_nccl' > $R/ctest_nccl.log 2>&1; echo "ctest ranks_nccl: $(grep -E 'tests passed' $R/ctest_nccl.log)")
for d in realistic adversarial exact; do
  echo "np2_t2_ipc_${d}_small 200 $M -np 2 $L check --backend cuda --dims k3 --tp 2 --dist $d --tokens 1,5,33,128,256,257 --json $R/np2_t2_ipc_${d}_small.json"
  echo "np2_t2_nccl_${d}_small 200 $M -np 2 $L check --backend cuda --transport nccl --dims k3 --tp 2 --tier 1,2,3,4 --dist $d --tokens 1,5,33,128,256,257 --json $R/np2_t2_nccl_${d}_small.json"
  for t in 1 2 3 4; do
    echo "np2_t2_ipc_${d}_2048_tier$t 200 $M -np 2 $L check --backend cuda --dims k3 --tp 2 --tier $t --dist $d --tokens 2048 --json $R/np2_t2_ipc_${d}_2048_tier$t.json"
    echo "np2_t2_nccl_${d}_2048_tier$t 200 $M -np 2 $L check --backend cuda --transport nccl --dims k3 --tp 2 --tier $t --dist $d --tokens 2048 --json $R/np2_t2_nccl_${d}_2048_tier$t.json"
  done
done > $R/jobs.txt
OMP_NUM_THREADS=3 xargs -P 12 -L 1 bash -c 's "$@"' _ < $R/jobs.txt > $R/phase_t2.txt 2>&1; cat $R/phase_t2.txt
left=$(( 570 - ($(date +%s) - t0) ))
if [ $left -gt 30 ]; then s bench_np2 $(( left - 5 )) $M -np 2 $L bench --backend cuda --dims k3 --tp 2,8 --tokens 1,5,16 --json $R/bench_np2.json; fi
grep -hE "^ +(tier0-[a-z0-9-]+) " $R/bench.log $R/bench_t16.log | awk '{print $1, $2, $3, $4, $7, $8}'
grep -hE "^ +tier0-all " $R/bench.log $R/bench_gemv_split.log | awk '{print $1, $2, $3, $4}'
grep -hE "^ +tier0 " $R/bench_np2.log
tar czf $OUT/r.tgz -C $OUT r
echo "total $(( $(date +%s) - t0 )) s"
