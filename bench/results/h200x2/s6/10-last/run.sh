# Sixth session, call 10: the tiled kernel's test at K 4096 (added by the
# review) and the other tier 0 few-token entries, on the final tree.
set -uo pipefail
R=$OUT/r; mkdir -p $R
t0=$(date +%s)
(cmake --preset release -DLTT_WITH_FUZZ=OFF -DCMAKE_CUDA_ARCHITECTURES=90 -DCMAKE_PREFIX_PATH=$PWD/.device-deps/usr > $R/build.log 2>&1 && cmake --build --preset release -j32 --target ltt >> $R/build.log 2>&1) || { grep -E "error" $R/build.log | head; tail -30 $R/build.log; exit 2; }
echo "build $(( $(date +%s) - t0 )) s; warnings: $(grep -c -i warning $R/build.log)"
(cd build/release && timeout 120 ctest -R 'gpu.tier0_gemv' -j4 > $R/ctest_gemv.log 2>&1; echo "ctest gpu.tier0_gemv*: $(grep -E 'tests passed' $R/ctest_gemv.log)"; grep -E "Failed|\*\*\*|Not Run" $R/ctest_gemv.log)
tar czf $OUT/r.tgz -C $OUT r
echo "total $(( $(date +%s) - t0 )) s"
