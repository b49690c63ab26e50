# Fourteenth session, call 4 (one H200): call 3's T 16 run alone (in call 3 it
# shared the GPU and CPUs with T 8 and its autotuning passed the limit):
# autotuned at M 128, then run at M 256 and 2048; a fresh machine.
# Only the ltt target is built.
set -uo pipefail
export NCCL_NVLS_ENABLE=0 OMP_NUM_THREADS=4
R=$OUT/r; mkdir -p $R; t0=$(date +%s)
(cmake --preset release -DLTT_WITH_FUZZ=OFF -DCMAKE_CUDA_ARCHITECTURES=90 -DCMAKE_PREFIX_PATH=$PWD/.device-deps/usr > $R/build.log 2>&1 && cmake --build --preset release -j16 --target ltt >> $R/build.log 2>&1)
echo "build rc $? $(( $(date +%s) - t0 )) s; warnings: $(grep -c -i warning $R/build.log)"
[ -x build/release/bin/ltt ] || { tail -30 $R/build.log; tar czf $OUT/r.tgz -C $OUT r; exit 2; }
tt() { local n=$1; shift; TORCHINDUCTOR_CACHE_DIR=/tmp/ic3_$n PYTHONUNBUFFERED=1 timeout 400 python3 scripts/torch_tiers.py --ltt build/release/bin/ltt --work /tmp/w3_$n --dims k3 --device cuda --compile --keep-casts --compile-mode max-autotune --gemm-backends TRITON --dynamic-tokens --out $R/$n.md --json $R/$n.json "$@" > $R/$n.log 2>&1; echo "$n exit $?" >> $R/exits.txt; }
tt m128_T16 --tp 16 --tokens 128,256,2048 --dist realistic --gemm bf16 &
wait
cat $R/exits.txt
for f in m128_T16; do echo "== $f"; grep -E '^\[|^# correct outputs|^# ERROR|Traceback|Error:' $R/$f.log | tail -12; done
grep -h -E "^AUTOTUNE" $R/m128_*.log | sort | uniq -c | head -20
tar czf $OUT/r.tgz -C $OUT r
echo "total $(( $(date +%s) - t0 )) s"
