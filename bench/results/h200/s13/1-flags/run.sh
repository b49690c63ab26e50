# Thirteenth session, call 1 (one H200): the warm step's chain floor with
# its hand-offs by counters in memory (chain-flags-tier0) beside the grid
# waits (chain-tier0, chain-read-tier0); memcheck and racecheck over a
# small case of the same rows.
set -uo pipefail
R=$OUT/r; mkdir -p $R
export NCCL_NVLS_ENABLE=0 OMP_NUM_THREADS=4
t0=$(date +%s)
(cmake --preset release -DLTT_WITH_FUZZ=OFF -DCMAKE_CUDA_ARCHITECTURES=90 -DCMAKE_PREFIX_PATH=$PWD/.device-deps/usr > $R/build.log 2>&1 && cmake --build --preset release -j16 --target ltt >> $R/build.log 2>&1) || { grep -E "error" $R/build.log | head; tail -30 $R/build.log; tar czf $OUT/r.tgz -C $OUT r; exit 2; }
echo "build $(( $(date +%s) - t0 )) s; warnings: $(grep -c -i warning $R/build.log)"
L=$PWD/build/release/bin/ltt
s() { local n=$1 to=$2; shift 2; local a=$(date +%s); timeout $to "$@" > $R/$n.log 2>&1; echo "$n: exit $? $(( $(date +%s) - a )) s: $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $R/$n.log | tr '\n' ' ')"; grep -E "ltt:|rror:" $R/$n.log | head -4; }
s bench 150 $L bench --backend cuda --dims k3 --tp 8,16 --tier 0 --tokens 1,5 --json $R/bench.json
grep -E "^ +(tier0-rank|read-tier0|chain-tier0|chain-read-tier0|chain-flags-tier0|tier0-gemv-split-warm|launch-graph) " $R/bench.log
s san_memcheck 90 compute-sanitizer --tool memcheck --error-exitcode 9 $L bench --backend cuda --dims 1024,512 --tp 8 --tier 0 --tokens 1 --reps 2
s san_racecheck 90 compute-sanitizer --tool racecheck --error-exitcode 9 $L bench --backend cuda --dims 1024,512 --tp 8 --tier 0 --tokens 1 --reps 2
grep -cE "^ +chain-(read-|flags-)?tier0 " $R/san_memcheck.log
tar czf $OUT/r.tgz -C $OUT r
echo "total $(( $(date +%s) - t0 )) s"
