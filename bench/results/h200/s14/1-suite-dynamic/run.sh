# Fourteenth session, call 1 (one H200): the final tree's whole build and GPU
# suite; beside the suite, Inductor's Triton GEMM templates past M 33 with the
# token count symbolic (torch_tiers.py --dynamic-tokens: one compile a tier,
# autotuned at the first M, then run at every later M, as vLLM compiles).
set -uo pipefail
export NCCL_NVLS_ENABLE=0 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_NUM_THREADS=4
R=$OUT/r; mkdir -p $R; t0=$(date +%s)
(cmake --preset release -DLTT_WITH_FUZZ=OFF -DCMAKE_CUDA_ARCHITECTURES=90 -DCMAKE_PREFIX_PATH=$PWD/.device-deps/usr > $R/build.log 2>&1 && cmake --build --preset release -j16 >> $R/build.log 2>&1)
echo "build rc $? $(( $(date +%s) - t0 )) s; warnings: $(grep -c -i warning $R/build.log)"
[ -x build/release/bin/ltt ] || { tail -30 $R/build.log; tar czf $OUT/r.tgz -C $OUT r; exit 2; }
suite() { cd build/release && timeout 300 ctest -R '^gpu\.|python' -E 'ranks_' -j4 > $R/ctest_gpu.log 2>&1; }
tt() { local n=$1; shift; TORCHINDUCTOR_CACHE_DIR=/tmp/ic_$n PYTHONUNBUFFERED=1 timeout 400 python3 scripts/torch_tiers.py --ltt build/release/bin/ltt --work /tmp/w_$n --dims k3 --device cuda --compile --keep-casts --compile-mode max-autotune --gemm-backends TRITON --dynamic-tokens --gemm bf16 --out $R/$n.md --json $R/$n.json "$@" > $R/$n.log 2>&1; echo "$n exit $?" >> $R/exits.txt; }
suite &
tt dyn_T8 --tp 8 --tokens 5,33,128,257 --dist realistic,adversarial &
tt dyn_T16 --tp 16 --tokens 33,128,256 --dist realistic,adversarial &
wait
echo "ctest gpu: $(grep -E 'tests passed' $R/ctest_gpu.log)"; grep -E "Failed|\*\*\*|Not Run" $R/ctest_gpu.log | head
cat $R/exits.txt
for f in dyn_T8 dyn_T16; do echo "== $f"; grep -E '^\[|^# correct outputs|^# ERROR|Traceback|Error:' $R/$f.log | tail -12; done
grep -h -E "^AUTOTUNE" $R/dyn_*.log | sort | uniq -c | head -20
tar czf $OUT/r.tgz -C $OUT r
echo "total $(( $(date +%s) - t0 )) s"
