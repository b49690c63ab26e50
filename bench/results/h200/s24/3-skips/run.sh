# Twenty-fourth session, call 3 (one H200): the tree after the review of the
# tests (3c777bd): GPU tests skip only on ltt's start-up refusal or too few
# GPUs; the README's GPU-machine command, scripts/ctest-gpu-host.sh, fails
# any other skip. Here: the build (build.mma_trace now with warnings as
# errors), the whole suite through that script (every GPU test must run,
# not skip: only html.report and the two-GPU tests may skip on one GPU),
# and the script's answer where a GPU test does skip (CUDA_VISIBLE_DEVICES
# empty: ltt sees no device while nvidia-smi lists one), which must fail.
set -uo pipefail
R=$OUT/r; mkdir -p $R
export NCCL_NVLS_ENABLE=0 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_NUM_THREADS=4
t0=$(date +%s)
(cmake --preset release -DLTT_WITH_FUZZ=OFF -DCMAKE_CUDA_ARCHITECTURES=90 -DCMAKE_PREFIX_PATH=$PWD/.device-deps/usr > $R/build.log 2>&1 && cmake --build --preset release -j16 >> $R/build.log 2>&1) || { grep -E "error" $R/build.log | head; tail -30 $R/build.log; exit 2; }
echo "build $(( $(date +%s) - t0 )) s; warnings: $(grep -c -i warning $R/build.log)"
a=$(date +%s); timeout 300 scripts/ctest-gpu-host.sh -j8 > $R/ctest_all.log 2>&1; echo "ctest-gpu-host, whole suite: exit $? $(( $(date +%s) - a )) s"
grep -E "tests passed|tests failed|ctest-gpu-host|\(Skipped\)|\(Failed\)|Timeout" $R/ctest_all.log
a=$(date +%s); CUDA_VISIBLE_DEVICES= timeout 60 scripts/ctest-gpu-host.sh -R '^gpu\.check_small$|^gpu\.ranks_ipc$' > $R/ctest_hidden.log 2>&1; echo "ctest-gpu-host, GPU hidden from ltt: exit $? $(( $(date +%s) - a )) s (must be 1)"
grep -E "tests passed|ctest-gpu-host|\(Skipped\)" $R/ctest_hidden.log
echo "total $(( $(date +%s) - t0 )) s"
tar czf $OUT/r.tgz -C $OUT r
