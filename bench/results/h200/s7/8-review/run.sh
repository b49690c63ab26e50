# Seventh session, call 8 (one H200): after the review, the few-token
# kernel's GPU entries (the two new ones at 4 steps a warp among them) and
# the refusal messages.
set -uo pipefail
R=$OUT/r; mkdir -p $R
export OMP_NUM_THREADS=4
t0=$(date +%s)
(cmake --preset release -DLTT_WITH_FUZZ=OFF -DCMAKE_CUDA_ARCHITECTURES=90 -DCMAKE_PREFIX_PATH=$PWD/.device-deps/usr > $R/build.log 2>&1 && cmake --build --preset release -j16 >> $R/build.log 2>&1) || { grep -E "error" $R/build.log | head; tail -30 $R/build.log; exit 2; }
echo "build $(( $(date +%s) - t0 )) s; warnings: $(grep -c -i warning $R/build.log)"
(cd build/release && timeout 150 ctest -R 'gpu\.tier0|gpu\.check_small$|gpu_plan' -j6 --output-on-failure > $R/ctest.log 2>&1; echo "ctest: $(grep -E 'tests passed' $R/ctest.log)"; grep -E "Failed|\*\*\*|Not Run" $R/ctest.log)
L=$PWD/build/release/bin/ltt
env LTT_TIER0_PATH=gemv-split $L check --backend cuda --dims 16384,512 --tp 2 --tier 0 --tokens 65 --dist realistic 2>&1 | grep "ltt:" | head -2
env LTT_TIER0_PATH=gemv-split LTT_TIER0_GEMV_PLAN=4x1 $L check --backend cuda --dims k3 --tp 8 --tier 0 --tokens 5 --dist realistic 2>&1 | grep "ltt:" | head -2
tar czf $OUT/r.tgz -C $OUT r
echo "total $(( $(date +%s) - t0 )) s"
