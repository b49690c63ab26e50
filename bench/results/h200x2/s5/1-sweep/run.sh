# Fifth session, call 1: the GPU suite and tier 0 on the tree as committed, the
# whole two-GPU sweep of the multi-GPU issue (k3, T 8 and 16, every tier where
# it applies, M 1 .. 2048, all distributions; 12 mpirun -np 2 jobs, 8 at a time),
# then the real-rank benchmark on quiet GPUs.
set -uo pipefail
R=$OUT/r; mkdir -p $R
export NCCL_NVLS_ENABLE=0 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_NUM_THREADS=3
t0=$(date +%s)
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv > $R/gpu.txt 2>&1
(cmake --preset release -DLTT_WITH_FUZZ=OFF -DCMAKE_CUDA_ARCHITECTURES=90 -DCMAKE_PREFIX_PATH=$PWD/.device-deps/usr > $R/build.log 2>&1 && cmake --build --preset release -j32 >> $R/build.log 2>&1) || { grep -E "error" $R/build.log | head; tail -30 $R/build.log; exit 2; }
echo "build $(( $(date +%s) - t0 )) s; warnings: $(grep -c -i warning $R/build.log)"
L=$PWD/build/release/bin/ltt
M="mpirun --allow-run-as-root --oversubscribe --bind-to none -x NCCL_NVLS_ENABLE -x OMP_NUM_THREADS"
sum() { echo "$1: exit $2 $3 s: $(grep -E '^# ([0-9]+ cases|Out of|Mutants)|ERROR SUMMARY' $R/$1.log | sort | uniq -c | tr '\n' ' ') ident $(grep -c 'bitwise identical' $R/$1.log) differ $(grep -c 'ranks differ' $R/$1.log)"; grep -E "FAIL|ltt:|rror:" $R/$1.log | head -4; }
s() { local n=$1 to=$2; shift 2; local a=$(date +%s); timeout $to "$@" > $R/$n.log 2>&1; sum $n $? $(( $(date +%s) - a )); }
export -f s sum; export R L M
# the sweep: jobs T x dist x (M up to 257 | M 2048), default tiers (0 where it applies)
for T in 8 16; do for d in realistic adversarial exact; do
  echo "np2_t${T}_${d}_small 330 $M -np 2 $L check --backend cuda --dims k3 --tp $T --dist $d --tokens 1,5,33,128,256,257 --json $R/np2_t${T}_${d}_small.json"
  echo "np2_t${T}_${d}_2048 330 $M -np 2 $L check --backend cuda --dims k3 --tp $T --dist $d --tokens 2048 --json $R/np2_t${T}_${d}_2048.json"
done; done > $R/jobs.txt
(xargs -P 8 -L 1 bash -c 's "$@"' _ < $R/jobs.txt) > $R/phase_sweep.txt 2>&1 &
# beside it: the GPU tests (both GPUs visible), tier 0 on fake ranks, np 8 on one GPU
((cd build/release && timeout 200 ctest -R '^gpu\.|python' -j3 > $R/ctest_gpu.log 2>&1; echo "ctest gpu+python: $(grep -E 'tests passed' $R/ctest_gpu.log)"; grep -E "Failed|\*\*\*|Skipped|Not Run" $R/ctest_gpu.log)
 export CUDA_VISIBLE_DEVICES=1
 s t0_fake 120 $L check --backend cuda --dims k3 --tp 8,16 --tier 0 --tokens 1,5,16,33,64,65,128 --dist all
 s np8_t0 120 $M -np 8 $L check --backend cuda --dims k3 --tp 8 --tier 0 --tokens 1,5,33,64,128 --dist realistic,adversarial) > $R/phase_gpu.txt 2>&1
wait
cat $R/phase_gpu.txt $R/phase_sweep.txt
left=$(( 560 - ($(date +%s) - t0) ))
if [ $left -gt 40 ]; then s bench_np2 $(( left - 10 )) $M -np 2 $L bench --backend cuda --dims k3 --tp 2,8 --tokens 1,5,33,128,2048 --json $R/bench_np2.json; fi
tar czf $OUT/r.tgz -C $OUT r
echo "total $(( $(date +%s) - t0 )) s"
