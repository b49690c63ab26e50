# Ninth session, call 3 (one H200): the MMA kernel's epilogue by bulk copies (each
# block writes its partial over its own tiles, then the bulk copy unit takes
# each block's columns to that block's shared memory, counted on a barrier there;
# one split cluster barrier keeps blocks until the copies are done). Its exact check,
# tier 0 forced to it, the sanitizers, then tier 0's rows, and the timeline
# (LTT_MMA_TRACE build).
set -uo pipefail
R=$OUT/r; mkdir -p $R
export NCCL_NVLS_ENABLE=0
t0=$(date +%s)
C="-DLTT_WITH_FUZZ=OFF -DCMAKE_CUDA_ARCHITECTURES=90 -DCMAKE_PREFIX_PATH=$PWD/.device-deps/usr"
(cmake --preset release $C > $R/build.log 2>&1 && cmake --build --preset release -j16 >> $R/build.log 2>&1) || { grep -E "error" $R/build.log | head; tail -30 $R/build.log; tar czf $OUT/r.tgz -C $OUT r; exit 2; }
echo "build $(( $(date +%s) - t0 )) s; warnings: $(grep -c -i warning $R/build.log); ptxas infos: $(grep -c 'ptxas info' $R/build.log)"
(cmake -S . -B build/trace -DCMAKE_BUILD_TYPE=Release -DLTT_MMA_TRACE=ON $C > $R/build_trace.log 2>&1 && cmake --build build/trace --target ltt -j8 >> $R/build_trace.log 2>&1; echo "trace build exit $?") > $R/phase_trace_build.txt 2>&1 &
L=$PWD/build/release/bin/ltt
s() { local n=$1 to=$2; shift 2; local a=$(date +%s); timeout $to "$@" > $R/$n.log 2>&1; echo "$n: exit $? $(( $(date +%s) - a )) s: $(grep -E '^# ([0-9]+ cases|Out of)|ERROR SUMMARY|hazards|test cases' $R/$n.log | sort | uniq -c | tr '\n' ' ')"; grep -E "FAIL|ltt:|rror:|ERROR|wrong" $R/$n.log | head -6; }
s exact 90 build/release/bin/ltt_tests --test-case=gpu_mma:* --no-version
s mma_small 90 env LTT_TIER0_PATH=mma $L check --backend cuda --dims 1024,512 --tp 8,16 --tier 0 --tokens 1,5,16,17,31,33,48,49,64,65,90,96,112,127,128 --dist all
s mma_k3 120 env LTT_TIER0_PATH=mma $L check --backend cuda --dims k3 --tp 8,16 --tier 0 --tokens 1,17,33,64,96,128 --dist realistic,adversarial
(cd build/release && timeout 120 ctest -R 'gpu\.(tier0_mma|mma|tier0_gemv)' -j4 > $R/ctest_mma.log 2>&1; echo "ctest mma: $(grep -E 'tests passed' $R/ctest_mma.log)"; grep -E "Failed|\*\*\*" $R/ctest_mma.log)
for tool in memcheck racecheck synccheck initcheck; do
  s san_$tool 90 env LTT_TIER0_PATH=mma compute-sanitizer --tool $tool --error-exitcode 9 $L check --backend cuda --dims 1024,512 --tp 8 --tier 0 --tokens 17,128 --dist realistic
done
wait
cat $R/phase_trace_build.txt
s bench 150 $L bench --backend cuda --dims k3 --tp 8,16 --tier 0 --tokens 17,33,64,96,128 --json $R/bench.json
grep -hE "^ +(tier0-(rank|mma|mma-kernel|cublas)|read-tier0) " $R/bench.log | awk '{print $1, $2, $3, $4}' | sort -k1,1 -k2n -k3n | awk '{a[$1" T"$2]=a[$1" T"$2]" "$3":"$4} END{for(k in a) print k, a[k]}' | sort
s trace 100 build/trace/bin/ltt bench --backend cuda --dims k3 --tp 8 --tier 0 --tokens 17,128
grep -E "^# (tier0-mma|  )" $R/trace.log | head -60
tar czf $OUT/r.tgz -C $OUT r
echo "total $(( $(date +%s) - t0 )) s"
