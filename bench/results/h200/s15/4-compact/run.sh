# Fifteenth session, call 4 (one H200): call 3's default form of tier 2's
# cuBLASLt call (compact output, copied into place) read its addend through
# the output's descriptor (an ltt bug, caught by the verdict: 8 of 8 failed);
# mended, the GPU entries of --gemm-algos and the k3 cases again.
set -uo pipefail
export NCCL_NVLS_ENABLE=0 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
R=$OUT/r; mkdir -p $R; t0=$(date +%s)
(cmake --preset release -DLTT_WITH_FUZZ=OFF -DCMAKE_CUDA_ARCHITECTURES=90 -DCMAKE_PREFIX_PATH=$PWD/.device-deps/usr > $R/build.log 2>&1 && cmake --build --preset release -j16 --target ltt >> $R/build.log 2>&1)
echo "build rc $? $(( $(date +%s) - t0 )) s; warnings: $(grep -c -i warning $R/build.log)"
[ -x build/release/bin/ltt ] || { tail -30 $R/build.log; tar czf $OUT/r.tgz -C $OUT r; exit 2; }
(cd build/release && OMP_NUM_THREADS=8 timeout 100 ctest -R 'gemm_algos' -j3 --output-on-failure > $R/ctest_gemm_algos.log 2>&1; echo "ctest exit $?" >> $R/exits.txt) &
(OMP_NUM_THREADS=8 timeout 100 build/release/bin/ltt check --backend cuda --dims k3 --tp 8,16 --tier 2 --tokens 33,257 --dist realistic --gemm-algos listed > $R/default_k3.log 2> $R/default_k3.err; echo "default_k3 exit $?" >> $R/exits.txt) &
wait
cat $R/exits.txt; grep -E "tests passed|Failed|\*\*\*" $R/ctest_gemm_algos.log | head
echo "== default_k3: $(grep -E '^# [0-9]+ cases' $R/default_k3.log)"; grep -E 'cuBLASLt algorithms' $R/default_k3.log | cut -c1-160
tar czf $OUT/r.tgz -C $OUT r
echo "total $(( $(date +%s) - t0 )) s"
