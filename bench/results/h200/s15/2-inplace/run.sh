# Fifteenth session, call 2 (one H200): tier 2 failed under some of
# cuBLASLt's listed algorithms (call 1), and its GEMM is the only one that
# runs in place (C == D, n = H/T columns of rows H apart). The same cases
# with that call run out of place (LTT_GEMM_LT_INPLACE=copy: D into scratch
# with the same leading dimension, then copied into place; compact: a
# compact D), memcheck on the in-place form, and call 1's cut remainder
# (tiers 2-4 at M 2048, adversarial, the heuristic's list).
set -uo pipefail
export NCCL_NVLS_ENABLE=0 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
R=$OUT/r; mkdir -p $R; t0=$(date +%s)
(cmake --preset release -DLTT_WITH_FUZZ=OFF -DCMAKE_CUDA_ARCHITECTURES=90 -DCMAKE_PREFIX_PATH=$PWD/.device-deps/usr > $R/build.log 2>&1 && cmake --build --preset release -j16 --target ltt >> $R/build.log 2>&1)
echo "build rc $? $(( $(date +%s) - t0 )) s; warnings: $(grep -c -i warning $R/build.log)"
[ -x build/release/bin/ltt ] || { tail -30 $R/build.log; tar czf $OUT/r.tgz -C $OUT r; exit 2; }
L=build/release/bin/ltt
ab() {  # name, then ltt check arguments; the three forms of tier 2's call, one after another
  local n=$1; shift
  for m in inplace copy compact; do
    if [ $m = inplace ]; then unset LTT_GEMM_LT_INPLACE; else export LTT_GEMM_LT_INPLACE=$m; fi
    OMP_NUM_THREADS=4 timeout 150 $L check --backend cuda --tier 2 --gemm-algos listed "$@" > $R/${n}_$m.log 2> $R/${n}_$m.err
    echo "$n $m exit $? $(( $(date +%s) - t0 )) s" >> $R/exits.txt
  done
  unset LTT_GEMM_LT_INPLACE
}
ab k3_T8 --dims k3 --tp 8 --tokens 33,257 --dist realistic &
ab k3_T16 --dims k3 --tp 16 --tokens 257 --dist realistic &
ab small --dims small --tp 8,16 --tokens 5,33,129 --dist realistic,adversarial &
(OMP_NUM_THREADS=4 timeout 200 $L check --backend cuda --dims k3 --tp 8 --tier 2,3,4 --tokens 2048 --dist adversarial --gemm-algos listed --json $R/m2048.json > $R/m2048.log 2> $R/m2048.err; echo "m2048 exit $? $(( $(date +%s) - t0 )) s" >> $R/exits.txt) &
(timeout 200 compute-sanitizer --tool memcheck $L check --backend cuda --dims small --tp 8 --tier 2 --tokens 33,129 --dist realistic --gemm-algos listed > $R/memcheck.log 2>&1; echo "memcheck exit $? $(( $(date +%s) - t0 )) s" >> $R/exits.txt) &
wait
cat $R/exits.txt
for f in $R/*_inplace.log $R/*_copy.log $R/*_compact.log $R/m2048.log; do
  echo "== $(basename $f): $(grep -E '^# [0-9]+ cases' $f)"; grep -E 'cuBLASLt algorithms, [1-9]' $f | sed 's/(\(.\{200\}\).*/(\1 .../' | head -6
done
grep -h -E '^ltt:|status' $R/*.err | head
grep -E "ERROR SUMMARY|Invalid|out of bounds" $R/memcheck.log | sort | uniq -c | head
tar czf $OUT/r.tgz -C $OUT r
echo "total $(( $(date +%s) - t0 )) s"
