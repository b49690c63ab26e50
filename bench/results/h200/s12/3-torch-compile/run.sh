# Twelfth session, call 3 (one H200): is the verdict free of false alarms
# against torch.compile? scripts/torch_tiers.py --compile: every tier in
# PyTorch's ops, compiled by Inductor (its own Triton kernels for the sums,
# the RMSNorm and the adds; cuBLAS fp32 GEMMs, rounded once), on ltt golden
# cases at k3, T 8 and 16 side by side, judged by ltt verify.
set -uo pipefail
R=$OUT/r; mkdir -p $R
t0=$(date +%s)
(cmake --preset release -DLTT_WITH_FUZZ=OFF -DCMAKE_CUDA_ARCHITECTURES=90 -DCMAKE_PREFIX_PATH=$PWD/.device-deps/usr > $R/build.log 2>&1 && cmake --build --preset release -j16 --target ltt >> $R/build.log 2>&1) || { tail -30 $R/build.log; tar czf $OUT/r.tgz -C $OUT r; exit 2; }
echo "build $(( $(date +%s) - t0 )) s; warnings: $(grep -c -i warning $R/build.log)"
export TORCHINDUCTOR_CACHE_DIR=/tmp/inductor-cache
for tp in 8 16; do
  OMP_NUM_THREADS=8 PYTHONUNBUFFERED=1 timeout 430 python3 scripts/torch_tiers.py --ltt build/release/bin/ltt --work /tmp/tc_T$tp \
    --dims k3 --tp $tp --tokens 1,5,33,128,256,2048 --dist realistic,adversarial --device cuda --gemm fp32 --compile \
    --out $R/compile_T$tp.md --json $R/compile_T$tp.json > $R/compile_T$tp.log 2>&1 &
done
wait
for tp in 8 16; do echo "T $tp: $(grep -E '^\[|^# correct outputs|ERROR' $R/compile_T$tp.log | tail -3)"; done
tar czf $OUT/r.tgz -C $OUT r
echo "total $(( $(date +%s) - t0 )) s"
