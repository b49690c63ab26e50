# Sixth session, call 4: tier 0's default path with the column bound
# (cuBLAS from M 17 on shards wider than 896 columns): the GPU suite, tier 0
# on fake ranks at T 2, 4, 8, 16 across the bound, tier 0 at T 16 (is the
# cluster kernel still the faster there?), and two GPUs: the np 2 tier 0
# check at T 2 and the bench at T 2 and 8 (the crossovers).
set -uo pipefail
R=$OUT/r; mkdir -p $R
export NCCL_NVLS_ENABLE=0 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_NUM_THREADS=4
t0=$(date +%s)
(cmake --preset release -DLTT_WITH_FUZZ=OFF -DCMAKE_CUDA_ARCHITECTURES=90 -DCMAKE_PREFIX_PATH=$PWD/.device-deps/usr > $R/build.log 2>&1 && cmake --build --preset release -j32 >> $R/build.log 2>&1) || { grep -E "error" $R/build.log | head; tail -30 $R/build.log; exit 2; }
echo "build $(( $(date +%s) - t0 )) s; warnings: $(grep -c -i warning $R/build.log)"
L=$PWD/build/release/bin/ltt
M="mpirun --allow-run-as-root --oversubscribe --bind-to none -x NCCL_NVLS_ENABLE -x OMP_NUM_THREADS"
s() { local n=$1 to=$2; shift 2; local a=$(date +%s); timeout $to "$@" > $R/$n.log 2>&1; echo "$n: exit $? $(( $(date +%s) - a )) s: $(grep -E '^# ([0-9]+ cases|Out of|Mutants)|ERROR SUMMARY|hazards' $R/$n.log | sort | uniq -c | tr '\n' ' ') ident $(grep -c 'bitwise identical' $R/$n.log)"; grep -E "FAIL|ltt:|rror:" $R/$n.log | head -4; }
(export CUDA_VISIBLE_DEVICES=1
 (cd build/release && timeout 200 ctest -R '^gpu\.|python' -E 'ranks_' -j3 > $R/ctest_gpu.log 2>&1; echo "ctest gpu: $(grep -E 'tests passed' $R/ctest_gpu.log)"; grep -E "Failed|\*\*\*|Not Run" $R/ctest_gpu.log)
 s t0_fake 150 $L check --backend cuda --dims k3 --tp 2,4,8,16 --tier 0 --tokens 16,17,33,64,65 --dist realistic,adversarial) > $R/phase1.txt 2>&1 &
(export CUDA_VISIBLE_DEVICES=0
 s bench_t16 100 $L bench --backend cuda --dims k3 --tp 16 --tier 0 --tokens 1,16,17,33,64,128 --json $R/bench_t16.json
 s bench_t2 100 $L bench --backend cuda --dims k3 --tp 2,4 --tier 0 --tokens 17,33,64 --json $R/bench_t2.json) > $R/phase0.txt 2>&1
wait
cat $R/phase1.txt $R/phase0.txt
s np2_t2_t0 120 $M -np 2 $L check --backend cuda --dims k3 --tp 2 --tier 0 --tokens 17,33,64 --dist all
s bench_np2 150 $M -np 2 $L bench --backend cuda --dims k3 --tp 2,8 --tokens 1,5,16,33,64,128 --json $R/bench_np2.json
(cd build/release && timeout 120 ctest -R 'gpu.ranks' > $R/ctest_ranks.log 2>&1; echo "ctest gpu.ranks*: $(grep -E 'tests passed' $R/ctest_ranks.log)"; grep -E "Failed|\*\*\*|Not Run" $R/ctest_ranks.log)
grep -hE "^ +(tier0-(rank|cublas|split|gemv-split)|read-tier0) " $R/bench_t16.log $R/bench_t2.log | awk '{print $1, $2, $3, $4, $7, $8}'
grep -E "^ +tier[0-9]|fastest" $R/bench_np2.log
tar czf $OUT/r.tgz -C $OUT r
echo "total $(( $(date +%s) - t0 )) s"
