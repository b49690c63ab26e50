# Seventh session, call 7 (one H200): where the few-token kernel's cluster
# form (plan 4x4) and cuBLAS cross at T 8 between M 97 and 128.
set -uo pipefail
R=$OUT/r; mkdir -p $R
t0=$(date +%s)
(cmake --preset release -DLTT_WITH_FUZZ=OFF -DCMAKE_CUDA_ARCHITECTURES=90 -DCMAKE_PREFIX_PATH=$PWD/.device-deps/usr > $R/build.log 2>&1 && cmake --build --preset release -j16 >> $R/build.log 2>&1) || { grep -E "error" $R/build.log | head; tail -30 $R/build.log; exit 2; }
echo "build $(( $(date +%s) - t0 )) s; warnings: $(grep -c -i warning $R/build.log)"
L=$PWD/build/release/bin/ltt
timeout 150 $L bench --backend cuda --dims k3 --tp 8 --tier 0 --tokens 96,97,100,104,108,112,116,120,124,128 --json $R/bench.json > $R/bench.log 2>&1; echo "bench: exit $?"
grep -hE "^ +(tier0-(rank|cublas|gemv-split)) " $R/bench.log | awk '{print $1, $2, $3, $4}' | sort -k1,1 -k2n -k3n | awk '{a[$1" T"$2]=a[$1" T"$2]" "$3":"$4} END{for(k in a) print k, a[k]}' | sort
tar czf $OUT/r.tgz -C $OUT r
echo "total $(( $(date +%s) - t0 )) s"
