# Fourteenth session, call 4 (one H200): which rows differ. torch.compile with
# M symbolic in max-autotune mode with cuBLAS GEMMs only (GEMM backends ATEN:
# no Triton GEMMs to compile), casts kept, T 8 and 16, M 5, 33, 128, 257; the
# T 8 outputs kept, and rows.py names
# the rows of each adversarial output that differ from expected.tier{k} in
# more than half their elements, with their row kind.
set -uo pipefail
export NCCL_NVLS_ENABLE=0 OMP_NUM_THREADS=4
R=$OUT/r; mkdir -p $R; t0=$(date +%s)
(cmake --preset release -DLTT_WITH_FUZZ=OFF -DCMAKE_CUDA_ARCHITECTURES=90 -DCMAKE_PREFIX_PATH=$PWD/.device-deps/usr > $R/build.log 2>&1 && cmake --build --preset release -j16 --target ltt >> $R/build.log 2>&1)
echo "build rc $? $(( $(date +%s) - t0 )) s; warnings: $(grep -c -i warning $R/build.log)"
[ -x build/release/bin/ltt ] || { tail -30 $R/build.log; tar czf $OUT/r.tgz -C $OUT r; exit 2; }
tt() { local n=$1; shift; TORCHINDUCTOR_CACHE_DIR=/tmp/ic4_$n PYTHONUNBUFFERED=1 timeout 200 python3 scripts/torch_tiers.py --ltt build/release/bin/ltt --work /tmp/w4_$n --dims k3 --device cuda --compile --keep-casts --compile-mode max-autotune --gemm-backends ATEN --dynamic-tokens --gemm bf16 --tokens 5,33,128,257 --dist realistic,adversarial --out $R/$n.md --json $R/$n.json "$@" > $R/$n.log 2>&1; echo "$n exit $?" >> $R/exits.txt; }
tt def_T8 --tp 8 --keep &
tt def_T16 --tp 16 &
wait
cat $R/exits.txt
for f in def_T8 def_T16; do echo "== $f"; grep -E '^\[|^# correct outputs|^# ERROR|Traceback|Error:' $R/$f.log | tail -10; done
timeout 60 python3 bench/results/h200/s14/4-rows/rows.py /tmp/w4_def_T8 > $R/rows.log 2>&1; echo "rows.py exit $?"; cat $R/rows.log | head -30
tar czf $OUT/r.tgz -C $OUT r
echo "total $(( $(date +%s) - t0 )) s"
