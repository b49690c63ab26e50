# Twenty-seventh session, call 1 (one H200): the tree after this session's
# simulate, verify and Python changes, configured by cmake 4 there (gcc 13,
# nlohmann-json 3.11.3): the build, the whole suite by the README's
# GPU-machine command, a k3 cuda check, the README's PyTorch snippet's
# reading of a case file (safetensors' safe_open and its metadata), and the
# Python examples under pytest where pytest exists.
set -uo pipefail
R=$OUT/r; mkdir -p $R
export NCCL_NVLS_ENABLE=0 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
t0=$(date +%s)
(cmake --preset release -DLTT_WITH_FUZZ=OFF -DCMAKE_CUDA_ARCHITECTURES=90 -DCMAKE_PREFIX_PATH=$PWD/.device-deps/usr > $R/build.log 2>&1 && cmake --build --preset release -j16 >> $R/build.log 2>&1) || { grep -E "error" $R/build.log | head; tail -30 $R/build.log; tar czf $OUT/r.tgz -C $OUT r; exit 2; }
echo "build $(( $(date +%s) - t0 )) s; warnings: $(grep -c -i warning $R/build.log); cmake $(cmake --version | head -1)"
a=$(date +%s); OMP_NUM_THREADS=2 timeout 300 scripts/ctest-gpu-host.sh -j8 > $R/ctest_all.log 2>&1; echo "ctest-gpu-host, whole suite: exit $? $(( $(date +%s) - a )) s"
grep -E "tests passed|tests failed|ctest-gpu-host|\(Failed\)|Timeout" $R/ctest_all.log
L=build/release/bin/ltt
a=$(date +%s); timeout 200 $L check --backend cuda --dims k3 --tp 8,16 --tokens 1,33 --dist realistic,adversarial --json $R/k3.json > $R/k3.log 2>&1; echo "cuda k3 T 8,16 M 1,33: exit $? $(( $(date +%s) - a )) s; $(grep -E '^# [0-9]+ case' $R/k3.log)"
$L golden --out $R/case --dims small --tp 8 --tokens 5 --dist realistic --tier 1 > /dev/null
python3 - $R/case > $R/snippet.log 2>&1 <<'PY'
import glob, sys, torch
from safetensors import safe_open
from safetensors.torch import save_file
path = glob.glob(sys.argv[1] + "/*.safetensors")[0]
with safe_open(path, "pt") as f:
    case, meta = {k: f.get_tensor(k) for k in f.keys()}, f.metadata()
T, eps = int(meta["tp"]), float(meta["eps"])
R = [case[f"routed.rank{r}"] for r in range(T)]
print("T", T, "eps", eps, "R[0]", tuple(R[0].shape), R[0].dtype, "norm", meta["rmsnorm_order"])
save_file({"output.tier1.rank0": case["expected.tier1"].to(torch.bfloat16).contiguous()}, sys.argv[1] + "/out.safetensors")
PY
echo "snippet: exit $? $(tail -1 $R/snippet.log)"
$L verify --case $(ls $R/case/*.safetensors | grep -v out.safetensors) --output $R/case/out.safetensors > $R/snippet_verify.log 2>&1; echo "verify of the snippet's file: exit $? $(grep -E '^# [0-9]+ case' $R/snippet_verify.log)"
if python3 -c 'import pytest' 2>/dev/null; then LTT=$L PYTHONPATH=python timeout 200 python3 -m pytest -q python/examples > $R/pytest.log 2>&1; echo "pytest python/examples: exit $? $(tail -1 $R/pytest.log)"; else echo "no pytest there"; fi
$L --version
echo "total $(( $(date +%s) - t0 )) s"
tar czf $OUT/r.tgz -C $OUT r
