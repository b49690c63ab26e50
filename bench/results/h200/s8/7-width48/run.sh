# Eighth session, call 7 (one H200): the MMA kernel with n 64 from M 33 to 48
# (n 48 was slow behind the RMSNorm kernel in call 6). Its exact self-check,
# tier 0 forced to it at small sizes, then tier 0's rows at M 33 .. 64.
set -uo pipefail
R=$OUT/r; mkdir -p $R
export NCCL_NVLS_ENABLE=0
t0=$(date +%s)
git rev-parse HEAD > $R/commit.txt
(cmake --preset release -DLTT_WITH_FUZZ=OFF -DCMAKE_CUDA_ARCHITECTURES=90 -DCMAKE_PREFIX_PATH=$PWD/.device-deps/usr > $R/build.log 2>&1 && cmake --build --preset release -j16 >> $R/build.log 2>&1) || { tail -30 $R/build.log; exit 2; }
echo "build $(( $(date +%s) - t0 )) s; warnings: $(grep -c -i warning $R/build.log)"
L=$PWD/build/release/bin/ltt
s() { local n=$1 to=$2; shift 2; local a=$(date +%s); timeout $to "$@" > $R/$n.log 2>&1; echo "$n: exit $? $(( $(date +%s) - a )) s: $(grep -E '^# ([0-9]+ cases|Out of)' $R/$n.log | sort | uniq -c | tr '\n' ' ')"; grep -E "FAIL|ltt:|rror:|ERROR|wrong" $R/$n.log | head -6; }
s exact 60 build/release/bin/ltt_tests --test-case=gpu_mma:* --no-version
s mma_small 60 env LTT_TIER0_PATH=mma $L check --backend cuda --dims 1024,512 --tp 8,16 --tier 0 --tokens 17,33,40,48,49 --dist all
s bench 100 $L bench --backend cuda --dims k3 --tp 8,16 --tier 0 --tokens 33,40,48,64 --json $R/bench.json
grep -hE "^ +(tier0-(rank|mma|mma-kernel|gemv-split)) " $R/bench.log | awk '{print $1, $2, $3, $4}' | sort -k1,1 -k2n -k3n | awk '{a[$1" T"$2]=a[$1" T"$2]" "$3":"$4} END{for(k in a) print k, a[k]}' | sort
echo "total $(( $(date +%s) - t0 )) s"
