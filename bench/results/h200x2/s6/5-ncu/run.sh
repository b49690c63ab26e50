# Sixth session, call 5: where the few-token kernel's time goes at M 1 and
# 16 (tier 0, k3, T 8), and the read floor kernel beside it: ncu at base
# clocks, bytes from memory and from L2, throughput, duration.
set -uo pipefail
R=$OUT/r; mkdir -p $R
t0=$(date +%s)
(cmake --preset release -DLTT_WITH_FUZZ=OFF -DCMAKE_CUDA_ARCHITECTURES=90 -DCMAKE_PREFIX_PATH=$PWD/.device-deps/usr > $R/build.log 2>&1 && cmake --build --preset release -j32 --target ltt >> $R/build.log 2>&1) || { grep -E "error" $R/build.log | head; tail -30 $R/build.log; exit 2; }
echo "build $(( $(date +%s) - t0 )) s; warnings: $(grep -c -i warning $R/build.log)"
L=$PWD/build/release/bin/ltt
MET=gpu__time_duration.sum,dram__bytes_read.sum,lts__t_bytes.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,lts__t_sectors_srcunit_tex_op_read.sum,sm__warps_active.avg.pct_of_peak_sustained_active
(export CUDA_VISIBLE_DEVICES=0
 timeout 150 ncu --clock-control base -k regex:shard_gemv -c 4 --metrics $MET $L check --backend cuda --dims k3 --tp 8 --tier 0 --tokens 1,16 --dist realistic > $R/ncu_gemv.log 2>&1; echo "ncu gemv: exit $?") &
(export CUDA_VISIBLE_DEVICES=1
 timeout 150 ncu --clock-control base -k regex:read_only_k -c 4 --metrics $MET $L bench --backend cuda --dims k3 --tp 8 --tier 0 --tokens 1 --reps 1 > $R/ncu_read.log 2>&1; echo "ncu read: exit $?")
wait
grep -E "shard_gemv|read_only_k|duration|dram__|lts__|warps_active" $R/ncu_gemv.log | head -40
grep -E "read_only_k|duration|dram__|lts__|warps_active" $R/ncu_read.log | head -30
tar czf $OUT/r.tgz -C $OUT r
echo "total $(( $(date +%s) - t0 )) s"
