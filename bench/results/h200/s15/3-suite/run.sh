# Fifteenth session, call 3 (one H200): the final tree's whole build and GPU
# suite (tier 2's cuBLASLt call now out of place by default, as torch.addmm
# writes it); tier 2 in place once more, now with one descriptor for C and D
# (LTT_GEMM_LT_INPLACE=1), beside the default; tier 4 at M 2048 adversarial
# (call 2's cut remainder).
set -uo pipefail
export NCCL_NVLS_ENABLE=0 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
R=$OUT/r; mkdir -p $R; t0=$(date +%s)
(cmake --preset release -DLTT_WITH_FUZZ=OFF -DCMAKE_CUDA_ARCHITECTURES=90 -DCMAKE_PREFIX_PATH=$PWD/.device-deps/usr > $R/build.log 2>&1 && cmake --build --preset release -j16 >> $R/build.log 2>&1)
echo "build rc $? $(( $(date +%s) - t0 )) s; warnings: $(grep -c -i warning $R/build.log)"
[ -x build/release/bin/ltt ] || { tail -30 $R/build.log; tar czf $OUT/r.tgz -C $OUT r; exit 2; }
L=build/release/bin/ltt
(cd build/release && OMP_NUM_THREADS=4 timeout 240 ctest -R '^gpu\.|python' -E 'ranks_' -j4 > $R/ctest_gpu.log 2>&1; echo "suite exit $? $(( $(date +%s) - t0 )) s" >> $R/exits.txt) &
one() { local n=$1; shift; OMP_NUM_THREADS=4 timeout 200 $L check --backend cuda "$@" > $R/$n.log 2> $R/$n.err; echo "$n exit $? $(( $(date +%s) - t0 )) s" >> $R/exits.txt; }
(LTT_GEMM_LT_INPLACE=1 one inplace_k3 --dims k3 --tp 8 --tier 2 --tokens 33,257 --dist realistic --gemm-algos listed
 one default_k3 --dims k3 --tp 8 --tier 2 --tokens 33,257 --dist realistic --gemm-algos listed) &
(LTT_GEMM_LT_INPLACE=1 one inplace_small --dims small --tp 8,16 --tier 2 --tokens 5,33,129 --dist realistic,adversarial --gemm-algos listed
 one m2048_t4 --dims k3 --tp 8 --tier 4 --tokens 2048 --dist adversarial --gemm-algos listed --json $R/m2048_t4.json) &
wait
echo "ctest gpu: $(grep -E 'tests passed' $R/ctest_gpu.log)"; grep -E "Failed|\*\*\*|Not Run" $R/ctest_gpu.log | head
cat $R/exits.txt
for n in inplace_k3 default_k3 inplace_small m2048_t4; do
  echo "== $n: $(grep -E '^# [0-9]+ cases' $R/$n.log)"; grep -E 'cuBLASLt algorithms' $R/$n.log | sed 's/(\(.\{160\}\).*/(\1 .../' | head -8
done
grep -h -E '^ltt:' $R/*.err | head
tar czf $OUT/r.tgz -C $OUT r
echo "total $(( $(date +%s) - t0 )) s"
