# Eighteenth session, call 4 (one H200): PyTorch's F.rms_norm eager at M 2048,
# T 16, realistic, GEMMs on fp32 copies, against the fused order (the last
# gap of the F.rms_norm runs at M 2048).
set -uo pipefail
export NCCL_NVLS_ENABLE=0
R=$OUT/r; mkdir -p $R; t0=$(date +%s)
(cmake --preset release -DLTT_WITH_FUZZ=OFF -DCMAKE_CUDA_ARCHITECTURES=90 -DCMAKE_PREFIX_PATH=$PWD/.device-deps/usr > $R/build.log 2>&1 && cmake --build --preset release -j16 --target ltt >> $R/build.log 2>&1)
echo "build rc $? $(( $(date +%s) - t0 )) s; warnings: $(grep -c -i warning $R/build.log)"
[ -x build/release/bin/ltt ] || { tail -30 $R/build.log; exit 2; }
OMP_NUM_THREADS=16 PYTHONUNBUFFERED=1 timeout 420 python3 scripts/torch_tiers.py --ltt build/release/bin/ltt --work /tmp/w --dims k3 --device cuda --rmsnorm torch --golden-norm fused --gemm fp32 --tp 16 --tokens 2048 --dist realistic --out $R/rms_2048_t16.md --json $R/rms_2048_t16.json > $R/rms_2048_t16.log 2>&1
echo "exit $? $(( $(date +%s) - t0 )) s"
grep -E '^\[|^# correct outputs|Traceback|Error:' $R/rms_2048_t16.log
grep -E "^    (correct|row|eps|drop) .*(Out of bound|cases,)" $R/rms_2048_t16.log | cut -c1-200
rm -f $R/*.partial
