# Twenty-first session, call 3 (one H200): the final tree (9f69175, a comment
# and a line split in golden.cpp after call 2): the build, the golden,
# safetensors and faults entries, and the GPU suite.
set -uo pipefail
R=$OUT/r; mkdir -p $R
export NCCL_NVLS_ENABLE=0 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_NUM_THREADS=4
t0=$(date +%s)
(cmake --preset release -DLTT_WITH_FUZZ=OFF -DCMAKE_CUDA_ARCHITECTURES=90 -DCMAKE_PREFIX_PATH=$PWD/.device-deps/usr > $R/build.log 2>&1 && cmake --build --preset release -j16 >> $R/build.log 2>&1) || { grep -E "error" $R/build.log | head; tail -30 $R/build.log; exit 2; }
echo "build $(( $(date +%s) - t0 )) s; warnings: $(grep -c -i warning $R/build.log)"
(cd build/release && timeout 150 ctest -R 'golden|safetensors|faults' -j8 > $R/ctest_host.log 2>&1; echo "ctest golden/safetensors/faults: $(grep -E 'tests passed' $R/ctest_host.log) $(( $(date +%s) - t0 )) s"; grep -E "Failed|\*\*\*|Not Run|Timeout" $R/ctest_host.log
 timeout 200 ctest -R '^gpu\.|python|lt_inplace' -E 'ranks' -j4 > $R/ctest_gpu.log 2>&1; echo "ctest gpu: $(grep -E 'tests passed' $R/ctest_gpu.log) $(( $(date +%s) - t0 )) s"; grep -E "Failed|\*\*\*|Not Run|Timeout" $R/ctest_gpu.log)
echo "total $(( $(date +%s) - t0 )) s"
tar czf $OUT/r.tgz -C $OUT r
