# Nineteenth session, call 2 (one H200): the final tree (a new-user review's
# mends: atomic reports, strict manifests and machine files, the eps floor,
# mutants' least T) built on the GPU machine (gcc 13, nlohmann-json 3.11.3);
# the GPU suite; the rest of the suite on 16 cores; then, alone on the GPU,
# ltt bench's tier 0 and RMSNorm rows and PyTorch's composition
# (bench/torch/compose.py: eager ops and torch.compile) in the same call.
set -uo pipefail
R=$OUT/r; mkdir -p $R
export NCCL_NVLS_ENABLE=0 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_NUM_THREADS=4
t0=$(date +%s)
(cmake --preset release -DLTT_WITH_FUZZ=OFF -DCMAKE_CUDA_ARCHITECTURES=90 -DCMAKE_PREFIX_PATH=$PWD/.device-deps/usr > $R/build.log 2>&1 && cmake --build --preset release -j16 >> $R/build.log 2>&1) || { grep -E "error" $R/build.log | head; tail -30 $R/build.log; tar czf $OUT/r.tgz -C $OUT r; exit 2; }
echo "build $(( $(date +%s) - t0 )) s; warnings: $(grep -c -i warning $R/build.log)"
L=$PWD/build/release/bin/ltt
(cd build/release && timeout 200 ctest -R '^gpu\.|python|lt_inplace' -E 'ranks' -j4 > $R/ctest_gpu.log 2>&1; echo "ctest gpu: $(grep -E 'tests passed' $R/ctest_gpu.log) $(( $(date +%s) - t0 )) s"; grep -E "Failed|\*\*\*|Not Run|Timeout" $R/ctest_gpu.log
 timeout 280 ctest -E '^gpu\.|python|lt_inplace' -j12 > $R/ctest_rest.log 2>&1; echo "ctest rest: $(grep -E 'tests passed' $R/ctest_rest.log) $(( $(date +%s) - t0 )) s"; grep -E "Failed|\*\*\*|Not Run|Timeout" $R/ctest_rest.log)
# alone on the GPU
timeout 70 $L bench --backend cuda --dims k3 --tp 8 --tier 0 --tokens 1,5,33,128 --json $R/bench.json > $R/bench.log 2>&1; echo "bench exit $?"
grep -E "^ +(tier0-rank|chain-read-tier0|tier0-cublas) " $R/bench.log
timeout 40 $L bench --backend cuda --dims k3 --tp 8 --tier 1 --tokens 2048,8192 --json $R/bench_norm.json > $R/bench_norm.log 2>&1; echo "bench_norm exit $?"
grep -E "^ +(rmsnorm|rmsnorm-pdl|copy-norm) " $R/bench_norm.log
timeout 120 python3 bench/torch/compose.py --json $R/compose.json > $R/compose.log 2>&1; echo "compose exit $?"
grep -v '^\[W' $R/compose.log | head -30
tar czf $OUT/r.tgz -C $OUT r
echo "total $(( $(date +%s) - t0 )) s"
