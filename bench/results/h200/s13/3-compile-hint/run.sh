# Thirteenth session, call 3 (one H200): torch.compile's tiers again, now
# judged by an ltt built with the missing-roundings hint (Inductor's
# defaults, which drop the fp32 -> bf16 -> fp32 casts: the twelfth session
# saw every one refused); each verify JSON kept, to read the hint's fields.
# Beside it, Inductor's own Triton GEMMs (max-autotune, casts kept), T 8.
set -uo pipefail
R=$OUT/r; mkdir -p $R; t0=$(date +%s)
export NCCL_NVLS_ENABLE=0
[ -x build/release/bin/ltt ] || { (cmake --preset release -DLTT_WITH_FUZZ=OFF -DCMAKE_CUDA_ARCHITECTURES=90 -DCMAKE_PREFIX_PATH=$PWD/.device-deps/usr && cmake --build --preset release -j16 --target ltt) > $R/build.log 2>&1; echo "build $(( $(date +%s) - t0 )) s; warnings: $(grep -c -i warning $R/build.log)"; }
for tp in 8 16; do
  TORCHINDUCTOR_CACHE_DIR=/tmp/ic_$tp OMP_NUM_THREADS=5 PYTHONUNBUFFERED=1 timeout 330 python3 scripts/torch_tiers.py --ltt build/release/bin/ltt --work /tmp/hint_T$tp --dims k3 --tp $tp --tokens 1,5,33,128,256 --dist realistic,adversarial --device cuda --gemm fp32 --compile --out $R/compile_T$tp.md --json $R/compile_T$tp.json > $R/compile_T$tp.log 2>&1 &
done
TORCHINDUCTOR_CACHE_DIR=/tmp/ic_tr OMP_NUM_THREADS=5 PYTHONUNBUFFERED=1 timeout 330 python3 scripts/torch_tiers.py --ltt build/release/bin/ltt --work /tmp/triton_T8 --dims k3 --tp 8 --tokens 1,33,128 --dist realistic --device cuda --gemm bf16 --compile --keep-casts --compile-mode max-autotune --gemm-backends TRITON --out $R/triton_T8.md --json $R/triton_T8.json > $R/triton_T8.log 2>&1 &
wait
for f in compile_T8 compile_T16 triton_T8; do echo "== $f"; grep -E '^\[|^# correct outputs|ERROR|Traceback' $R/$f.log | tail -14; done
mkdir -p $R/verify
for d in /tmp/hint_T8 /tmp/hint_T16 /tmp/triton_T8; do [ -d $d/verify/correct ] && cp -r $d/verify/correct $R/verify/$(basename $d); done
python3 - $R/verify <<'PY'
import json, sys, glob, os
for f in sorted(glob.glob(sys.argv[1] + "/*/*.json")):
    for c in json.load(open(f)).get("cases", []):
        a = c.get("admissible", {})
        print(os.path.basename(os.path.dirname(f)), os.path.basename(f), "tier", c["tier"], "pass" if c["pass"] else "FAIL",
              "outside", a.get("outside"), "at_rounded_truth", a.get("outside_at_rounded_truth"), "missing_rounding", a.get("missing_rounding_points"))
PY
tar czf $OUT/r.tgz -C $OUT r
echo "total $(( $(date +%s) - t0 )) s"
