# Twenty-fifth session, call 3 (one H200): the final tree (330f77a) by the
# README's GPU-machine command: the build and the whole suite, now with
# torch.tiers_guard (a copy of torch_tiers.py that plants nothing must exit
# 1) and the pinned floors of tests/admissible.cpp; then torch_tiers.py's
# new rule on the GPU: small, fp32 GEMMs, exact inputs, where eps x10 has no
# effect at M 1 (excused, counted apart) and every other bug must fail.
set -uo pipefail
R=$OUT/r; mkdir -p $R
export NCCL_NVLS_ENABLE=0 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
t0=$(date +%s)
(cmake --preset release -DLTT_WITH_FUZZ=OFF -DCMAKE_CUDA_ARCHITECTURES=90 -DCMAKE_PREFIX_PATH=$PWD/.device-deps/usr > $R/build.log 2>&1 && cmake --build --preset release -j16 >> $R/build.log 2>&1) || { grep -E "error" $R/build.log | head; tail -30 $R/build.log; tar czf $OUT/r.tgz -C $OUT r; exit 2; }
echo "build $(( $(date +%s) - t0 )) s; warnings: $(grep -c -i warning $R/build.log)"
L=build/release/bin/ltt
a=$(date +%s); OMP_NUM_THREADS=2 timeout 300 scripts/ctest-gpu-host.sh -j8 > $R/ctest_all.log 2>&1; echo "ctest-gpu-host, whole suite: exit $? $(( $(date +%s) - a )) s"
grep -E "tests passed|tests failed|ctest-gpu-host|\(Failed\)|Timeout|torch\." $R/ctest_all.log
a=$(date +%s); OMP_NUM_THREADS=8 timeout 120 python3 scripts/torch_tiers.py --ltt $L --work /tmp/tt_exact --device cuda --gemm fp32 --dims small --tp 8,16 --tokens 1,5,33 --dist exact --out $R/small_exact.md --json $R/small_exact.json > $R/small_exact.log 2>&1; echo "small_exact: exit $? $(( $(date +%s) - a )) s: $(grep '# correct' $R/small_exact.log)"
echo "total $(( $(date +%s) - t0 )) s"
tar czf $OUT/r.tgz -C $OUT r
