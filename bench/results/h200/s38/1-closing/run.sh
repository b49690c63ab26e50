# Thirty-eighth session, call 1 (asked for nvidia-h200): the tree of session
# 37's stop (07d32f6's code, AdmCtx::reduce_roundings; records since) with the
# new `speed` helper of scripts/device-steps.sh. Build everything; the speed
# figures if the card is an H200; the whole suite by the README's GPU-machine
# command; what had not run on this code: the cuda mutants, process per rank
# (mpirun -np 8, one GPU) against the fake ranks, PyTorch's own tiers at T 8,
# and compute-sanitizer's racecheck, synccheck and initcheck on a small
# adversarial case of every tier; to the deadline.
. scripts/device-steps.sh
build
speed
s suite 150 "$ROOT/scripts/ctest-gpu-host.sh" -j8
tail -4 "$R/suite.out"
s mutants_cuda 100 "$L" mutants --backend cuda --dims small --tp 8,16 --tokens 5,33 --dist adversarial --json mu.json
s np8_k3 120 $M -np 8 "$L" check --backend cuda --dims k3 --tp 8 --tokens 1,33,257,2048 --dist adversarial --json np8_k3.json
rows np8_k3.json
s torch_T8 120 python3 "$ROOT/scripts/torch_tiers.py" --ltt "$L" --work "$W/tt8" --dims k3 --tp 8 --tokens 5,33,128 --dist adversarial --device cuda --gemm fp32 --json "$R/torch_T8.json" --out "$R/torch_T8.md"
for tool in racecheck synccheck initcheck; do
  s "san_$tool" 60 compute-sanitizer --tool "$tool" --error-exitcode 9 "$L" check --backend cuda --dims small --tp 8 --tokens 5,33 --dist adversarial
  grep -E "ERROR SUMMARY|RACECHECK SUMMARY" "$R/san_$tool.out"
done
(cd "$W" && cp ./*.json "$R/" 2>/dev/null)
"$L" --version
echo "total $(( $(date +%s) - t0 )) s"
