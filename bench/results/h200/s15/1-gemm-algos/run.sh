# Fifteenth session, call 1 (one H200): the whole build and the GPU suite
# (with --gemm-algos' new entries), and beside it cuBLASLt's own algorithms
# against the verdict at k3 sizes: the heuristic's list (what cuBLAS picks)
# for tiers 1-4 at T 8 and 16, the split-K forms at T 8, tier 0 on its
# cuBLAS path with both.
set -uo pipefail
export NCCL_NVLS_ENABLE=0 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
R=$OUT/r; mkdir -p $R; t0=$(date +%s)
(cmake --preset release -DLTT_WITH_FUZZ=OFF -DCMAKE_CUDA_ARCHITECTURES=90 -DCMAKE_PREFIX_PATH=$PWD/.device-deps/usr > $R/build.log 2>&1 && cmake --build --preset release -j16 >> $R/build.log 2>&1)
echo "build rc $? $(( $(date +%s) - t0 )) s; warnings: $(grep -c -i warning $R/build.log)"
[ -x build/release/bin/ltt ] || { tail -30 $R/build.log; tar czf $OUT/r.tgz -C $OUT r; exit 2; }
suite() { (cd build/release && OMP_NUM_THREADS=4 timeout 240 ctest -R '^gpu\.|python' -E 'ranks_' -j4 > $R/ctest_gpu.log 2>&1); echo "suite exit $? $(( $(date +%s) - t0 )) s" >> $R/exits.txt; }
sweep() { local n=$1 t=$2; shift 2; OMP_NUM_THREADS=4 timeout $t build/release/bin/ltt check --backend cuda --dims k3 --json $R/$n.json "$@" > $R/$n.log 2> $R/$n.err; echo "$n exit $? $(( $(date +%s) - t0 )) s" >> $R/exits.txt; }
(suite; sweep listed_T16 200 --tp 16 --tier 1,2,3,4 --tokens 1,5,33,128,257 --dist realistic,adversarial --gemm-algos listed) &
sweep listed_T8 420 --tp 8 --tier 1,2,3,4 --tokens 1,5,33,128,257,2048 --dist realistic,adversarial --gemm-algos listed &
sweep split_T8 420 --tp 8 --tier 1,2,3,4 --tokens 5,33,257 --dist realistic,adversarial --gemm-algos split-k &
LTT_TIER0_PATH=cublas sweep t0 300 --tp 8,16 --tier 0 --tokens 1,5,33,128 --dist realistic,adversarial --gemm-algos all &
wait
echo "ctest gpu: $(grep -E 'tests passed' $R/ctest_gpu.log)"; grep -E "Failed|\*\*\*|Not Run" $R/ctest_gpu.log | head
cat $R/exits.txt
for n in listed_T8 listed_T16 split_T8 t0; do
  echo "== $n: $(grep -c '^cuBLASLt for' $R/$n.err) GEMMs listed; $(grep -E '^# [0-9]+ cases' $R/$n.log)"
  grep -h -E '^cuBLASLt for' $R/$n.err | head -12
  grep -h -E 'cuBLASLt algorithms' $R/$n.log | sed 's/(\(.\{300\}\).*/(\1 .../' | head -40
  grep -h -E '^#   FAIL|^# ltt|^ltt:' $R/$n.log $R/$n.err | head -10
done
tar czf $OUT/r.tgz -C $OUT r
echo "total $(( $(date +%s) - t0 )) s"
