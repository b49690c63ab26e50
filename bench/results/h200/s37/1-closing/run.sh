# Thirty-seventh session, call 1 (asked for nvidia-h200): the closing tree of
# session 36 (07d32f6, AdmCtx::reduce_roundings) on the GPU: the whole build
# (gcc 13), the speed benchmarks first if the card is an H200 (tier 0 at
# M 1..128, RMSNorm at M 2048 and 8192, PyTorch's composition), the suite by
# the README's GPU-machine command, the main job's M 8192 adversarial T 8
# with the row check (cut by the last call's deadline), and compute-sanitizer
# memcheck on a small case of every tier. Helpers: scripts/device-steps.sh.
. scripts/device-steps.sh
build
if grep -q H200 "$R/gpu.txt"; then
  s bench 70 $L bench --backend cuda --dims k3 --tp 8 --tier 0 --tokens 1,5,33,128 --json $R/bench.json
  grep -E "^ +(tier0-rank|chain-read-tier0|tier0-cublas|copy) " $R/bench.out
  s bench_norm 40 $L bench --backend cuda --dims k3 --tp 8 --tier 1 --tokens 2048,8192 --json $R/bench_norm.json
  grep -E "^ +(rmsnorm|rmsnorm-pdl|copy-norm) " $R/bench_norm.out
  s compose 120 python3 $ROOT/bench/torch/compose.py --json $R/compose.json
  grep -v '^\[W' $R/compose.out | head -30
fi
s suite 150 $ROOT/scripts/ctest-gpu-host.sh -j8
tail -4 $R/suite.out
s m8192_adv_t8 200 $L check --backend cuda --dims k3 --tp 8 --tokens 8192 --dist adversarial --json m8192_t8.json
rows m8192_t8.json
s san_memcheck 60 compute-sanitizer --tool memcheck --error-exitcode 9 $L check --backend cuda --dims small --tp 8 --tokens 5,33 --dist adversarial
grep -E "ERROR SUMMARY" $R/san_memcheck.out
(cd $W && cp *.json $R/ 2>/dev/null)
$L --version
echo "total $(( $(date +%s) - t0 )) s"
