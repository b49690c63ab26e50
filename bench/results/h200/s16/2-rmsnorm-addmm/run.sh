# Sixteenth session, call 2 (one H200): PyTorch's own F.rms_norm in every
# tier with the GEMMs on fp32 copies (one rounding, so that only the RMSNorm
# is on trial; call 1's bf16 addmm rounded twice), against expected outputs
# of the fused order and of each tier's declared order; which function
# torch.addmm computes at the tiers' GEMM shapes (bench/torch/addmm_rounding.py);
# ltt verify's new hint (the GEMM's output rounded before the add) on
# torch's bf16 addmm outputs and on cuBLASLt in place (ltt check
# --gemm-algos with LTT_GEMM_LT_INPLACE=1). Cut to fit the device time left
# (about 10 minutes after refused starts): ltt alone built, no M 2048, no suite.
set -uo pipefail
export NCCL_NVLS_ENABLE=0
R=$OUT/r; mkdir -p $R; t0=$(date +%s)
(cmake --preset release -DLTT_WITH_FUZZ=OFF -DCMAKE_CUDA_ARCHITECTURES=90 -DCMAKE_PREFIX_PATH=$PWD/.device-deps/usr > $R/build.log 2>&1 && cmake --build --preset release -j16 --target ltt >> $R/build.log 2>&1)
echo "build rc $? $(( $(date +%s) - t0 )) s; warnings: $(grep -c -i warning $R/build.log)"
[ -x build/release/bin/ltt ] || { tail -30 $R/build.log; tar czf $OUT/r.tgz -C $OUT r; exit 2; }
tt() { local n=$1 t=$2; shift 2; OMP_NUM_THREADS=4 PYTHONUNBUFFERED=1 timeout $t python3 scripts/torch_tiers.py --ltt build/release/bin/ltt --work /tmp/w_$n --dims k3 --device cuda --rmsnorm torch --gemm fp32 --out $R/$n.md --json $R/$n.json "$@" > $R/$n.log 2>&1; echo "$n exit $? $(( $(date +%s) - t0 )) s" >> $R/exits.txt; }
(timeout 120 python3 bench/torch/addmm_rounding.py --json $R/addmm_rounding.json > $R/addmm_rounding.log 2>&1; echo "addmm_rounding exit $? $(( $(date +%s) - t0 )) s" >> $R/exits.txt) &
tt rms_fused_fp32 280 --golden-norm fused --tp 8,16 --tokens 1,5,33,257 --dist realistic,adversarial &
tt rms_declared_fp32 250 --golden-norm declared --tp 8 --tokens 1,33,257 --dist realistic,adversarial &
(OMP_NUM_THREADS=4 PYTHONUNBUFFERED=1 timeout 250 python3 scripts/torch_tiers.py --ltt build/release/bin/ltt --work /tmp/w_addmm --dims k3 --device cuda --gemm bf16 --tp 8 --tokens 1,33,257 --dist realistic,adversarial --out $R/addmm_bf16.md --json $R/addmm_bf16.json > $R/addmm_bf16.log 2>&1; echo "addmm_bf16 exit $? $(( $(date +%s) - t0 )) s" >> $R/exits.txt) &
(for a in "small --tokens 33" "k3 --tokens 257"; do LTT_GEMM_LT_INPLACE=1 OMP_NUM_THREADS=2 timeout 120 build/release/bin/ltt check --backend cuda --tp 8 --tier 2 --dist realistic --gemm-algos listed --dims $a; echo "exit $?"; done > $R/inplace_hint.log 2>&1; echo "inplace_hint done $(( $(date +%s) - t0 )) s" >> $R/exits.txt) &
wait
cat $R/exits.txt
cat $R/addmm_rounding.log
grep -E '^exit|^#   FAIL|hold the emulated|cuBLASLt algorithms' $R/inplace_hint.log | cut -c1-220 | head -20
for n in rms_fused_fp32 rms_declared_fp32 addmm_bf16; do echo "== $n"; grep -E '^\[|^# correct outputs|ERROR|Traceback|Error:' $R/$n.log | tail -22; grep -E "^    correct  " $R/$n.log | head -6; done
tar czf $OUT/r.tgz -C $OUT r
echo "total $(( $(date +%s) - t0 )) s"
