# Tenth session, call 4 (one H200): the final tree's RMSNorm rows at M 2048
# and 8192 (its block-a-row kernel gained the prefetch's arguments), and
# tier 0's rows at M 9 .. 16, where the few-token kernel hands over to the
# MMA kernel.
set -uo pipefail
R=$OUT/r; mkdir -p $R
export NCCL_NVLS_ENABLE=0
t0=$(date +%s)
(cmake --preset release -DLTT_WITH_FUZZ=OFF -DCMAKE_CUDA_ARCHITECTURES=90 -DCMAKE_PREFIX_PATH=$PWD/.device-deps/usr > $R/build.log 2>&1 && cmake --build --preset release -j16 >> $R/build.log 2>&1) || { grep -E "error" $R/build.log | head; tail -30 $R/build.log; tar czf $OUT/r.tgz -C $OUT r; exit 2; }
echo "build $(( $(date +%s) - t0 )) s; warnings: $(grep -c -i warning $R/build.log)"
L=$PWD/build/release/bin/ltt
timeout 150 $L bench --backend cuda --dims k3 --tp 8 --tier 0 --tokens 2048,8192 --json $R/bench_norm.json > $R/bench_norm.log 2>&1; echo "bench_norm: exit $?"
grep -E "^ +(rmsnorm|copy-norm)" $R/bench_norm.log
timeout 200 $L bench --backend cuda --dims k3 --tp 8,16 --tier 0 --tokens 9,10,11,12,13,14,15,16 --json $R/bench_few.json > $R/bench_few.log 2>&1; echo "bench_few: exit $?"
grep -hE "^ +tier0-(rank|mma-warm|gemv-split-warm) " $R/bench_few.log | awk '{print $1, $2, $3, $4}' | sort -k1,1 -k2n -k3n | awk '{a[$1" T"$2]=a[$1" T"$2]" "$3":"$4} END{for(k in a) print k, a[k]}' | sort
tar czf $OUT/r.tgz -C $OUT r
echo "total $(( $(date +%s) - t0 )) s"
