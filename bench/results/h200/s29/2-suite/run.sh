# Twenty-ninth session, call 2 (one H200): the two reviews' mends (simulate,
# invariance, verify, HTML, the Python package) built and the whole suite run
# by the README's GPU-machine command; then the k3 T 8 M 2048 PyTorch pipelines
# that call 1's time limit cut (fp32 GEMMs, seed 29), beside the suite.
set -uo pipefail
R=$OUT/r; mkdir -p $R
export NCCL_NVLS_ENABLE=0 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
t0=$(date +%s)
(cmake --preset release -DLTT_WITH_FUZZ=OFF -DCMAKE_CUDA_ARCHITECTURES=90 -DCMAKE_PREFIX_PATH=$PWD/.device-deps/usr > $R/build.log 2>&1 && cmake --build --preset release -j16 >> $R/build.log 2>&1) || { grep -E "error" $R/build.log | head; tail -30 $R/build.log; tar czf $OUT/r.tgz -C $OUT r; exit 2; }
echo "build $(( $(date +%s) - t0 )) s; warnings: $(grep -c -i warning $R/build.log)"
L=build/release/bin/ltt
( a=$(date +%s); OMP_NUM_THREADS=4 timeout 420 python3 scripts/torch_tiers.py --ltt $L --work /tmp/tt_k3 --device cuda --seed 29 --gemm fp32 --dims k3 --tp 8 --tokens 2048 --dist realistic,adversarial --out $R/k3_T8_M2048.md --json $R/k3_T8_M2048.json > $R/k3_T8_M2048.log 2>&1; echo "k3_T8_M2048: exit $? $(( $(date +%s) - a )) s: $(grep -E 'correct outputs|bugs' $R/k3_T8_M2048.log | tail -2 | tr '\n' ' ')" ) > $R/phase_t.txt 2>&1 &
a=$(date +%s); OMP_NUM_THREADS=4 timeout 400 scripts/ctest-gpu-host.sh -j6 > $R/ctest_all.log 2>&1; echo "ctest-gpu-host, whole suite: exit $? $(( $(date +%s) - a )) s"
grep -E "tests passed|tests failed|ctest-gpu-host|\(Failed\)|Timeout|Skipped|Not Run" $R/ctest_all.log | head -20
wait
cat $R/phase_t.txt
$L --version
echo "total $(( $(date +%s) - t0 )) s"
tar czf $OUT/r.tgz -C $OUT r
