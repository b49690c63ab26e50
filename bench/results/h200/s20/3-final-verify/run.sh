# Twentieth session, call 3 (one H200): the final tree after a new-user
# review's mends to verify, regress, golden and the Python package: the GPU
# suite (the Python package and PyTorch's tiers judged by ltt verify among
# it), then faults.robust, the verify, golden and casefile entries.
set -uo pipefail
R=$OUT/r; mkdir -p $R
export NCCL_NVLS_ENABLE=0 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_NUM_THREADS=4
t0=$(date +%s)
(cmake --preset release -DLTT_WITH_FUZZ=OFF -DCMAKE_CUDA_ARCHITECTURES=90 -DCMAKE_PREFIX_PATH=$PWD/.device-deps/usr > $R/build.log 2>&1 && cmake --build --preset release -j16 >> $R/build.log 2>&1) || { grep -E "error" $R/build.log | head; tail -30 $R/build.log; exit 2; }
echo "build $(( $(date +%s) - t0 )) s; warnings: $(grep -c -i warning $R/build.log)"
(cd build/release && timeout 120 ctest -R '^gpu\.|python|lt_inplace' -E 'ranks' -j4 > $R/ctest_gpu.log 2>&1; echo "ctest gpu: $(grep -E 'tests passed' $R/ctest_gpu.log) $(( $(date +%s) - t0 )) s"; grep -E "Failed|\*\*\*|Not Run|Timeout" $R/ctest_gpu.log
 timeout 90 ctest -R 'faults|verify|golden|casefile|check.reports' -j8 > $R/ctest_more.log 2>&1; echo "ctest faults/verify/golden: $(grep -E 'tests passed' $R/ctest_more.log) $(( $(date +%s) - t0 )) s"; grep -E "Failed|\*\*\*|Not Run|Timeout" $R/ctest_more.log)
echo "total $(( $(date +%s) - t0 )) s"
