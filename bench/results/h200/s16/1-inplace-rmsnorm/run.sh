# Sixteenth session, call 1 (one H200):
# - bench/lt_inplace.cu, cuBLASLt alone (no ltt code): does each listed
#   algorithm give the same bits in place (C == D) as out of place, and are
#   the in-place ones bf16(bf16(A B^T) + C)? Tier 2's GEMMs (k3 T 8 M 33,
#   257, 2048; T 16 M 257) and small (H 256, L 128, T 8, M 33);
# - PyTorch's own F.rms_norm in every tier (torch_tiers.py --rmsnorm torch),
#   against expected outputs of each RMSNorm order;
# - the fifteenth session's gaps: tier 2 out of place (the default) at M 2048
#   and on adversarial inputs, the split-K forms at T 16.
set -uo pipefail
export NCCL_NVLS_ENABLE=0
R=$OUT/r; mkdir -p $R; t0=$(date +%s)
(cmake --preset release -DLTT_WITH_FUZZ=OFF -DCMAKE_CUDA_ARCHITECTURES=90 -DCMAKE_PREFIX_PATH=$PWD/.device-deps/usr > $R/build.log 2>&1 && cmake --build --preset release -j16 --target ltt ltt_lt_inplace >> $R/build.log 2>&1)
echo "build rc $? $(( $(date +%s) - t0 )) s; warnings: $(grep -c -i warning $R/build.log)"
[ -x build/release/bin/ltt ] && [ -x build/release/bin/ltt_lt_inplace ] || { tail -30 $R/build.log; tar czf $OUT/r.tgz -C $OUT r; exit 2; }
lt() { local n=$1; shift; timeout 120 build/release/bin/ltt_lt_inplace "$@" > $R/lt_$n.log 2>&1; echo "lt_$n exit $? $(( $(date +%s) - t0 )) s" >> $R/exits.txt; }
sweep() { local n=$1 t=$2; shift 2; OMP_NUM_THREADS=3 timeout $t build/release/bin/ltt check --backend cuda --dims k3 --json $R/$n.json "$@" > $R/$n.log 2> $R/$n.err; echo "$n exit $? $(( $(date +%s) - t0 )) s" >> $R/exits.txt; }
tt() { local n=$1; shift; OMP_NUM_THREADS=3 PYTHONUNBUFFERED=1 timeout 300 python3 scripts/torch_tiers.py --ltt build/release/bin/ltt --work /tmp/w_$n --dims k3 --device cuda --rmsnorm torch --out $R/$n.md --json $R/$n.json "$@" > $R/$n.log 2>&1; echo "$n exit $? $(( $(date +%s) - t0 )) s" >> $R/exits.txt; }
(lt k3_T8_M33; lt k3_T8_M257 257 896 3584 7168; lt k3_T8_M2048 2048 896 3584 7168; lt k3_T16_M257 257 448 3584 7168; lt small_T8_M33 33 32 128 256) &
tt rms_rtw --golden-norm round-then-weight --tp 8,16 --tokens 1,5,33,257 --dist realistic,adversarial &
tt rms_fused --golden-norm fused --tp 8,16 --tokens 1,5,33,257 --dist realistic,adversarial &
sweep t2_oop 330 --tp 8 --tier 2 --tokens 33,257,2048 --dist realistic,adversarial --gemm-algos listed &
sweep split_T16 330 --tp 16 --tier 1,2,3,4 --tokens 5,33,257 --dist realistic,adversarial --gemm-algos split-k &
wait
cat $R/exits.txt
for n in k3_T8_M33 k3_T8_M257 k3_T8_M2048 k3_T16_M257 small_T8_M33; do echo "== lt $n"; grep -E 'lists|in place vs|of the differing|twice|algorithms give|^[A-Z]' $R/lt_$n.log | head -60; done
for n in rms_rtw rms_fused; do echo "== $n"; grep -E '^\[|^# correct outputs|ERROR|Traceback|Error:' $R/$n.log | tail -12; grep -E "^    correct  " $R/$n.log | head -6; done
for n in t2_oop split_T16; do echo "== $n: $(grep -c '^cuBLASLt for' $R/$n.err) GEMMs listed; $(grep -E '^# [0-9]+ cases' $R/$n.log)"; grep -h -E 'cuBLASLt algorithms' $R/$n.log | sed 's/(\(.\{200\}\).*/(\1 .../' | head -30; grep -h -E '^#   FAIL|^# ltt|^ltt:' $R/$n.log $R/$n.err | head -10; done
tar czf $OUT/r.tgz -C $OUT r
echo "total $(( $(date +%s) - t0 )) s"
