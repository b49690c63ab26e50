# Thirteenth session, call 4 (one H200): Inductor's own Triton GEMM
# templates judged by the verdict: torch.compile max-autotune with only
# Triton GEMMs (max_autotune_gemm_backends=TRITON), casts kept
# (pattern_matcher off, emulate_precision_casts on), bf16 GEMMs and fp32
# GEMMs. Call 3's attempt stopped at its first case (a CUDA-graph output
# read after the next call; torch_tiers.py now clones each output).
set -uo pipefail
R=$OUT/r; mkdir -p $R; t0=$(date +%s)
export NCCL_NVLS_ENABLE=0
[ -x build/release/bin/ltt ] || { (cmake --preset release -DLTT_WITH_FUZZ=OFF -DCMAKE_CUDA_ARCHITECTURES=90 -DCMAKE_PREFIX_PATH=$PWD/.device-deps/usr && cmake --build --preset release -j16 --target ltt) > $R/build.log 2>&1; echo "build $(( $(date +%s) - t0 )) s; warnings: $(grep -c -i warning $R/build.log)"; }
run() { local n=$1; shift; TORCHINDUCTOR_CACHE_DIR=/tmp/ic_$n OMP_NUM_THREADS=4 PYTHONUNBUFFERED=1 timeout 360 python3 scripts/torch_tiers.py --ltt build/release/bin/ltt --work /tmp/w_$n --dims k3 --device cuda --compile --keep-casts --compile-mode max-autotune --gemm-backends TRITON --out $R/$n.md --json $R/$n.json "$@" > $R/$n.log 2>&1; }
run triton_bf16_T8 --tp 8 --tokens 1,33,128 --dist realistic,adversarial --gemm bf16 &
run triton_bf16_T16 --tp 16 --tokens 1,33,128 --dist realistic --gemm bf16 &
run triton_fp32_T8 --tp 8 --tokens 1,33 --dist realistic --gemm fp32 &
wait
for f in triton_bf16_T8 triton_bf16_T16 triton_fp32_T8; do echo "== $f"; grep -E '^\[|^# correct outputs|ERROR|Traceback|Error:' $R/$f.log | tail -10; grep -E "^    correct  " $R/$f.log | head -6; done
grep -h -o "best_kernel_desc[^}]*" $R/*.log | sort | uniq -c | sort -rn | head -5
tar czf $OUT/r.tgz -C $OUT r
echo "total $(( $(date +%s) - t0 )) s"
