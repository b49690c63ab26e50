# Twenty-second session, call 4 (one H200): bdfc7ac, the session's last code
# change (help texts, verify's message, tests): the build, the tests that
# change touched, the ring GPU entries, the golden/verify/fault entries.
set -uo pipefail
R=$OUT/r; mkdir -p $R
export NCCL_NVLS_ENABLE=0 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_NUM_THREADS=4
t0=$(date +%s)
(cmake --preset release -DLTT_WITH_FUZZ=OFF -DCMAKE_CUDA_ARCHITECTURES=90 -DCMAKE_PREFIX_PATH=$PWD/.device-deps/usr > $R/build.log 2>&1 && cmake --build --preset release -j16 >> $R/build.log 2>&1) || { grep -E "error" $R/build.log | head; tail -30 $R/build.log; tar czf $OUT/r.tgz -C $OUT r; exit 2; }
echo "build $(( $(date +%s) - t0 )) s; warnings: $(grep -c -i warning $R/build.log)"
(cd build/release && timeout 150 ctest -R '^(casefile|tier[0-4]|admissible|bf16|problem|simulate\..*|golden\..*|faults\..*|check\..*ring.*|mutants.ring_small|gpu.check_small_ring|gpu.ranks_ipc_ring)$' -j12 > $R/ctest.log 2>&1; echo "ctest: $(grep -E 'tests passed' $R/ctest.log) $(( $(date +%s) - t0 )) s"; grep -E "Failed|\*\*\*|Not Run|Timeout" $R/ctest.log)
echo "total $(( $(date +%s) - t0 )) s"
tar czf $OUT/r.tgz -C $OUT r
