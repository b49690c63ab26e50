# Twenty-fifth session, call 5 (one H200): the tree after the last read (30f75cb: MPI collectives and the GPU peers' waits share one helper, mpi_waited; cuBLAS's words written once; before it, 9e568ab: one CMake
# function finds the Python that imports NumPy, or torch, for the tests that
# need it), configured by cmake 4 there: the build and the whole suite by the
# README's GPU-machine command, and which Python each of those tests runs.
set -uo pipefail
R=$OUT/r; mkdir -p $R
export NCCL_NVLS_ENABLE=0 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
t0=$(date +%s)
(cmake --preset release -DLTT_WITH_FUZZ=OFF -DCMAKE_CUDA_ARCHITECTURES=90 -DCMAKE_PREFIX_PATH=$PWD/.device-deps/usr > $R/build.log 2>&1 && cmake --build --preset release -j16 >> $R/build.log 2>&1) || { grep -E "error" $R/build.log | head; tail -30 $R/build.log; tar czf $OUT/r.tgz -C $OUT r; exit 2; }
echo "build $(( $(date +%s) - t0 )) s; warnings: $(grep -c -i warning $R/build.log); cmake $(cmake --version | head -1)"
(cd build/release && ctest -N -V -R 'python.package|torch\.' | grep -E "Test command" | cut -c1-120)
a=$(date +%s); OMP_NUM_THREADS=2 timeout 300 scripts/ctest-gpu-host.sh -j8 > $R/ctest_all.log 2>&1; echo "ctest-gpu-host, whole suite: exit $? $(( $(date +%s) - a )) s"
grep -E "tests passed|tests failed|ctest-gpu-host|\(Failed\)|Timeout" $R/ctest_all.log
echo "total $(( $(date +%s) - t0 )) s"
tar czf $OUT/r.tgz -C $OUT r
