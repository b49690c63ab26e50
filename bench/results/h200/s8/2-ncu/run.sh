# Eighth session, call 2 (one H200): where the MMA kernel's time goes. How
# many clusters of its shape fit at once (clusters.cu), and ncu on the
# kernel at k3, T 8, M 1 and 128 (one rank's call each: --launch-count).
set -uo pipefail
R=$OUT/r; mkdir -p $R
export NCCL_NVLS_ENABLE=0
t0=$(date +%s)
D=bench/results/h200/s8/2-ncu
git rev-parse HEAD > $R/commit.txt
nvcc -O2 -arch=sm_90a -o $R/clusters $D/clusters.cu && $R/clusters | tee $R/clusters.log
(cmake --preset release -DLTT_WITH_FUZZ=OFF -DCMAKE_CUDA_ARCHITECTURES=90 -DCMAKE_PREFIX_PATH=$PWD/.device-deps/usr > $R/build.log 2>&1 && cmake --build --preset release -j16 >> $R/build.log 2>&1) || { tail -30 $R/build.log; exit 2; }
echo "build $(( $(date +%s) - t0 )) s"
L=$PWD/build/release/bin/ltt
for M in 1 128; do
  LTT_TIER0_PATH=mma timeout 200 ncu --section SpeedOfLight --section MemoryWorkloadAnalysis --section WarpStateStats \
    --section LaunchStats --section Occupancy --section SchedulerStats --section SourceCounters \
    -k regex:shard_mma_k --launch-count 2 \
    $L check --backend cuda --dims k3 --tp 8 --tier 0 --tokens $M --dist realistic > $R/ncu_m$M.log 2>&1
  echo "ncu M $M: exit $?"
  grep -E "Duration|DRAM Throughput|Memory Throughput|L2 Hit|Achieved Occupancy|Cluster|Stall|Warp Cycles Per Issued|Issued Warp|No Eligible|Registers" $R/ncu_m$M.log | head -40
done
tar czf $OUT/r.tgz -C $OUT r
echo "total $(( $(date +%s) - t0 )) s"
