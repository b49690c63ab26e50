set -uo pipefail
R=$OUT/r; mkdir -p $R
export NCCL_NVLS_ENABLE=0 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_NUM_THREADS=8 CUDA_VISIBLE_DEVICES=0
t0=$(date +%s)
(cmake --preset release -DLTT_WITH_FUZZ=OFF -DCMAKE_CUDA_ARCHITECTURES=90 -DCMAKE_PREFIX_PATH=$PWD/.device-deps/usr > $R/build.log 2>&1 && cmake --build --preset release -j32 >> $R/build.log 2>&1) || { grep -E "error" $R/build.log | head; tail -30 $R/build.log; exit 2; }
echo "build $(( $(date +%s) - t0 )) s; warnings: $(grep -c -i warning $R/build.log)"
L=$PWD/build/release/bin/ltt
(cd build/release && timeout 60 ctest -R 'python.package' > $R/ctest_py.log 2>&1; grep -E "tests passed|Failed" $R/ctest_py.log)
timeout 120 $L bench --backend cuda --dims k3 --tp 8 --tokens 1,5,16,33,128,2048,8192 --tier 0 --json $R/bench.json > $R/bench.log 2>&1
grep -E "launch|rmsnorm|tier0-(rank|fused|split|cublas)|copy" $R/bench.log | grep -E "launch|rmsnorm( |-p1)|tier0|copy" | head -70
timeout 100 python3 bench/torch/compose.py --json $R/compose.json > $R/compose.log 2>&1; cat $R/compose.log
NCU="timeout 100 ncu --section SpeedOfLight --section LaunchStats --section Occupancy --section WarpStateStats --section MemoryWorkloadAnalysis"
$NCU -k regex:shard_gemm -c 2 $L bench --backend cuda --dims k3 --tp 8 --tokens 1 --tier 0 --reps 2 > $R/ncu_m1.log 2>&1
$NCU -k regex:shard_gemm -c 2 $L bench --backend cuda --dims k3 --tp 8 --tokens 128 --tier 0 --reps 2 > $R/ncu_m128.log 2>&1
$NCU -k regex:rmsnorm_warp -c 1 $L bench --backend cuda --dims k3 --tp 8 --tokens 1 --tier 0 --reps 2 > $R/ncu_rms1.log 2>&1
grep -E "shard_gemm|rmsnorm_warp|Duration|DRAM Throughput|Memory Throughput|Compute \(SM\)|Registers|Achieved Occupancy|Warp Cycles Per Issued|Cluster|Block Limit|Shared Memory Config|Dynamic Shared" $R/ncu_m1.log $R/ncu_m128.log $R/ncu_rms1.log | cut -c1-160 | head -80
tar czf $OUT/r.tgz -C $OUT r
echo "total $(( $(date +%s) - t0 )) s"
