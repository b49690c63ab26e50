set -uo pipefail
R=$OUT/r; mkdir -p $R
export NCCL_NVLS_ENABLE=0 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_NUM_THREADS=8
t0=$(date +%s)
git log --oneline -1 > $R/commit.txt
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv > $R/gpu.txt 2>&1
(cmake --preset release -DLTT_WITH_FUZZ=OFF -DCMAKE_CUDA_ARCHITECTURES=90 -DCMAKE_PREFIX_PATH=$PWD/.device-deps/usr > $R/build.log 2>&1 && cmake --build --preset release -j32 >> $R/build.log 2>&1) || { grep -E "error" $R/build.log | head; tail -30 $R/build.log; exit 2; }
echo "build $(( $(date +%s) - t0 )) s; warnings: $(grep -c -i warning $R/build.log)"
L=$PWD/build/release/bin/ltt
M="mpirun --allow-run-as-root --oversubscribe -x NCCL_NVLS_ENABLE -x OMP_NUM_THREADS"
s() { local n=$1 to=$2; shift 2; local a=$(date +%s); timeout $to "$@" > $R/$n.log 2>&1; echo "$n: exit $? $(( $(date +%s) - a )) s: $(grep -E '^# ([0-9]+ cases|Out of|Mutants)' $R/$n.log | tr '\n' ' ') ident $(grep -c 'bitwise identical' $R/$n.log) differ $(grep -c 'ranks differ' $R/$n.log)"; grep -E "FAIL|ltt:|rror" $R/$n.log | head -5; }
# B: CPU-heavy fake-rank runs on GPU 1, and the GPU tests (both GPUs visible)
(export CUDA_VISIBLE_DEVICES=1 OMP_NUM_THREADS=7
 s fake_t16_8192_adv 480 $L check --backend cuda --dims k3 --tp 16 --tokens 8192 --dist adversarial --json $R/fake_t16_8192_adv.json) > $R/phase_adv.txt &
(export CUDA_VISIBLE_DEVICES=1 OMP_NUM_THREADS=7
 s fake_t16_8192_exact 480 $L check --backend cuda --dims k3 --tp 16 --tokens 8192 --dist exact --json $R/fake_t16_8192_exact.json) > $R/phase_exact.txt &
(cd build/release && OMP_NUM_THREADS=3 timeout 300 ctest -R '^gpu\.|python' -j4 > $R/ctest_gpu.log 2>&1; echo "ctest gpu+python: $(grep -E 'tests passed' $R/ctest_gpu.log)"; grep -E "Failed|\*\*\*|Skipped|Not Run" $R/ctest_gpu.log) > $R/phase_ctest.txt &
# A: two GPUs, one rank each, then the benchmarks on GPU 0
(export OMP_NUM_THREADS=4
 s np2_m257 120 $M -np 2 $L check --backend cuda --dims k3 --tp 8,16 --tokens 257 --dist all --json $R/np2_m257.json
 s np2_t16_exact 150 $M -np 2 $L check --backend cuda --dims k3 --tp 16 --tokens 1,33,256 --dist exact --json $R/np2_t16_exact.json
 s np2_nccl_2048 150 $M -np 2 $L check --backend cuda --transport nccl --dims k3 --tp 2 --tier 1,2,3,4 --tokens 2048 --dist adversarial,exact --json $R/np2_nccl_2048.json
 export CUDA_VISIBLE_DEVICES=0
 s bench 150 $L bench --backend cuda --dims k3 --tp 8 --tokens 1,5,16,33,64,128,2048,8192 --json $R/bench.json
 s compose 90 python3 bench/torch/compose.py --json $R/compose.json) > $R/phase_a.txt
wait
cat $R/phase_a.txt $R/phase_ctest.txt $R/phase_adv.txt $R/phase_exact.txt
grep -E "allreduce|launch|rmsnorm( |-)|tier0-(rank|fused|split|cublas)" $R/bench.log | grep -E " (1|5|16|33|64|128|2048|8192) " | head -80
grep -E "rmsnorm_compile|tier0_compile|addmm|copy" $R/compose.log
tar czf $OUT/r.tgz -C $OUT r
echo "total $(( $(date +%s) - t0 )) s"
