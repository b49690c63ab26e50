# Seventh session, call 5 (one H200): racecheck on the few-token kernel's
# cluster form at sizes it finishes (call 4's T 8, H 1024, M 17 and 128 ran
# clean and T 16 was cut by the timeout): small dims (T 8: plan 4x4, T 16:
# 2x4, 4 blocks each), M 17 and 65 (two tiles and five); H 1024, L 512 at
# T 16 (plan 4x8, 16 blocks), M 17; and plan 4x4 forced there at T 8, M 33.
set -uo pipefail
R=$OUT/r; mkdir -p $R
t0=$(date +%s)
(cmake --preset release -DLTT_WITH_FUZZ=OFF -DCMAKE_CUDA_ARCHITECTURES=90 -DCMAKE_PREFIX_PATH=$PWD/.device-deps/usr > $R/build.log 2>&1 && cmake --build --preset release -j16 >> $R/build.log 2>&1) || { grep -E "error" $R/build.log | head; tail -30 $R/build.log; exit 2; }
echo "build $(( $(date +%s) - t0 )) s; warnings: $(grep -c -i warning $R/build.log)"
L=$PWD/build/release/bin/ltt
s() { local n=$1 to=$2; shift 2; local a=$(date +%s); timeout $to "$@" > $R/$n.log 2>&1; echo "$n: exit $? $(( $(date +%s) - a )) s: $(grep -E '^# ([0-9]+ cases|Out of)|ERROR SUMMARY|hazards' $R/$n.log | sort | uniq -c | tr '\n' ' ')"; grep -E "FAIL|ltt:|rror:" $R/$n.log | grep -v "ERROR SUMMARY: 0" | head -4; }
RC="compute-sanitizer --tool racecheck --racecheck-report all --error-exitcode 9"
s race_small 150 $RC $L check --backend cuda --dims small --tp 8,16 --tier 0 --tokens 17,65 --dist realistic
s race_t16 150 $RC $L check --backend cuda --dims 1024,512 --tp 16 --tier 0 --tokens 17 --dist realistic
s race_4x4 150 env LTT_TIER0_PATH=gemv-split LTT_TIER0_GEMV_PLAN=4x4 $RC $L check --backend cuda --dims 1024,512 --tp 8 --tier 0 --tokens 33 --dist realistic
tar czf $OUT/r.tgz -C $OUT r
echo "total $(( $(date +%s) - t0 )) s"
