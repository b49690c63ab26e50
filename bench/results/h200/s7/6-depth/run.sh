# Seventh session, call 6 (one H200): the cluster form with two tiles of N
# in flight (three register sets in rotation). Tier 0's rows at k3, T 8 and
# 16 (the GPU alone), then the few-token kernel's GPU entries and tier 0 on
# fake ranks at k3 over the M its paths take.
set -uo pipefail
R=$OUT/r; mkdir -p $R
export OMP_NUM_THREADS=4
t0=$(date +%s)
(cmake --preset release -DLTT_WITH_FUZZ=OFF -DCMAKE_CUDA_ARCHITECTURES=90 -DCMAKE_PREFIX_PATH=$PWD/.device-deps/usr > $R/build.log 2>&1 && cmake --build --preset release -j16 >> $R/build.log 2>&1) || { grep -E "error" $R/build.log | head; tail -30 $R/build.log; exit 2; }
echo "build $(( $(date +%s) - t0 )) s; warnings: $(grep -c -i warning $R/build.log)"
L=$PWD/build/release/bin/ltt
s() { local n=$1 to=$2; shift 2; local a=$(date +%s); timeout $to "$@" > $R/$n.log 2>&1; echo "$n: exit $? $(( $(date +%s) - a )) s: $(grep -E '^# ([0-9]+ cases|Out of)|ERROR SUMMARY|RACECHECK SUMMARY' $R/$n.log | sort | uniq -c | tr '\n' ' ')"; grep -E "FAIL|ltt:|rror:" $R/$n.log | head -4; }
s bench 200 $L bench --backend cuda --dims k3 --tp 8,16 --tier 0 --tokens 1,16,17,33,48,64,65,96,97,128 --json $R/bench.json
grep -hE "^ +(tier0-(rank|cublas|gemv-split|gemv-kernel[-0-9x]*)|read-tier0) " $R/bench.log | awk '{print $1, $2, $3, $4}' | sort -k1,1 -k2n -k3n | awk '{a[$1" T"$2]=a[$1" T"$2]" "$3":"$4} END{for(k in a) print k, a[k]}' | sort
(cd build/release && timeout 200 ctest -R 'gpu\.tier0_gemv|gpu\.check_small$|gpu_plan' -j4 --output-on-failure > $R/ctest.log 2>&1; echo "ctest: $(grep -E 'tests passed' $R/ctest.log)"; grep -E "Failed|\*\*\*|Not Run" $R/ctest.log) > $R/phase_ctest.txt 2>&1 &
s t0_k3 200 $L check --backend cuda --dims k3 --tp 8,16 --tier 0 --tokens 17,33,48,64,65,96,97,128 --dist all --json $R/t0_k3.json
s race 120 compute-sanitizer --tool racecheck --error-exitcode 9 $L check --backend cuda --dims small --tp 8,16 --tier 0 --tokens 17,65 --dist realistic
s mem 120 compute-sanitizer --tool memcheck --error-exitcode 9 $L check --backend cuda --dims 1024,512 --tp 8,16 --tier 0 --tokens 17,48,128 --dist realistic
wait
cat $R/phase_ctest.txt
tar czf $OUT/r.tgz -C $OUT r
echo "total $(( $(date +%s) - t0 )) s"
