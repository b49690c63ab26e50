# Fourteenth session, call 2 (one H200): Inductor's Triton GEMM templates with
# the token count symbolic (torch_tiers.py --dynamic-tokens), where call 1 ran
# out of time: T 16 past its first case, and at T 8 the GEMMs on fp32 copies
# (a Triton fp32 GEMM, TF32 off). Only the ltt target is built.
set -uo pipefail
export NCCL_NVLS_ENABLE=0 OMP_NUM_THREADS=4
R=$OUT/r; mkdir -p $R; t0=$(date +%s)
(cmake --preset release -DLTT_WITH_FUZZ=OFF -DCMAKE_CUDA_ARCHITECTURES=90 -DCMAKE_PREFIX_PATH=$PWD/.device-deps/usr > $R/build.log 2>&1 && cmake --build --preset release -j16 --target ltt >> $R/build.log 2>&1)
echo "build rc $? $(( $(date +%s) - t0 )) s; warnings: $(grep -c -i warning $R/build.log)"
[ -x build/release/bin/ltt ] || { tail -30 $R/build.log; tar czf $OUT/r.tgz -C $OUT r; exit 2; }
tt() { local n=$1; shift; TORCHINDUCTOR_CACHE_DIR=/tmp/ic_$n PYTHONUNBUFFERED=1 timeout 430 python3 scripts/torch_tiers.py --ltt build/release/bin/ltt --work /tmp/w_$n --dims k3 --device cuda --compile --keep-casts --compile-mode max-autotune --gemm-backends TRITON --dynamic-tokens --out $R/$n.md --json $R/$n.json "$@" > $R/$n.log 2>&1; echo "$n exit $?" >> $R/exits.txt; }
tt dyn_T16 --tp 16 --tokens 33,128,256 --dist realistic,adversarial --gemm bf16 &
tt dyn_fp32_T8 --tp 8 --tokens 5,33,128,257 --dist realistic,adversarial --gemm fp32 &
wait
cat $R/exits.txt
for f in dyn_T16 dyn_fp32_T8; do echo "== $f"; grep -E '^\[|^# correct outputs|^# ERROR|Traceback|Error:' $R/$f.log | tail -12; done
grep -h -E "^AUTOTUNE" $R/dyn_*.log | sort | uniq -c | head -20
tar czf $OUT/r.tgz -C $OUT r
echo "total $(( $(date +%s) - t0 )) s"
