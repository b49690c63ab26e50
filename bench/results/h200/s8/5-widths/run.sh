# Eighth session, call 5 (one H200): the MMA kernel with M rounded up to 16
# as the product's n (was 16, 32, 64 or 128) and its chunks of K interleaved
# over the cluster (block q: chunks q, q + ck, ...; was a contiguous slice).
set -uo pipefail
R=$OUT/r; mkdir -p $R
export NCCL_NVLS_ENABLE=0
t0=$(date +%s)
git rev-parse HEAD > $R/commit.txt
(cmake --preset release -DLTT_WITH_FUZZ=OFF -DCMAKE_CUDA_ARCHITECTURES=90 -DCMAKE_PREFIX_PATH=$PWD/.device-deps/usr > $R/build.log 2>&1 && cmake --build --preset release -j16 >> $R/build.log 2>&1) || { grep -E "error" $R/build.log | head; tail -30 $R/build.log; tar czf $OUT/r.tgz -C $OUT r; exit 2; }
echo "build $(( $(date +%s) - t0 )) s; warnings: $(grep -c -i warning $R/build.log); ptxas infos: $(grep -c 'ptxas info' $R/build.log)"
L=$PWD/build/release/bin/ltt
s() { local n=$1 to=$2; shift 2; local a=$(date +%s); timeout $to "$@" > $R/$n.log 2>&1; echo "$n: exit $? $(( $(date +%s) - a )) s: $(grep -E '^# ([0-9]+ cases|Out of|Mutants)|ERROR SUMMARY|hazards' $R/$n.log | sort | uniq -c | tr '\n' ' ')"; grep -E "FAIL|ltt:|rror:|ERROR|wrong" $R/$n.log | head -6; }
s exact 120 build/release/bin/ltt_tests --test-case=gpu_mma:* --no-version
s mma_k3 150 env LTT_TIER0_PATH=mma $L check --backend cuda --dims k3 --tp 8,16 --tier 0 --tokens 1,17,33,64,65,80,96,128 --dist realistic
s bench 200 $L bench --backend cuda --dims k3 --tp 8,16 --tier 0 --tokens 1,16,17,33,64,65,80,96,128 --json $R/bench.json
grep -E "^ +launch" $R/bench.log
grep -hE "^ +(tier0-(rank|mma|mma-kernel|mma-kernel-k[0-9]|gemv-kernel|gemv-split)|read-tier0) " $R/bench.log | awk '{print $1, $2, $3, $4}' | sort -k1,1 -k2n -k3n | awk '{a[$1" T"$2]=a[$1" T"$2]" "$3":"$4} END{for(k in a) print k, a[k]}' | sort
tar czf $OUT/r.tgz -C $OUT r
echo "total $(( $(date +%s) - t0 )) s"
