# Forty-fourth session, call 4: the row check's second, rstd-free check
# (reference/admissible_rows.cpp) against code that is not the reference, on
# the GPU. Two lanes at once:
#  cuda: ltt's cuda backend, the main job's adversarial cases (M 1..2048, the
#   row check on every probe row); seed 4 (row 0 an order probe: a one-token
#   case whose only row is one), one-shot and ring; then M 8192 adversarial
#   T 16 (1,024 probe rows: the check's cost at the largest M);
#  torch: PyTorch's own ops (fp32 GEMMs, members of every tier's family), k3,
#   adversarial, seeds 4 and 0, one-shot and ring; F.rms_norm's own kernel.
# To the deadline.
. scripts/device-steps.sh
[ -x "$L" ] || build ltt
tt() { local n=$1 to=$2; shift 2; s "$n" "$to" python3 "$ROOT/scripts/torch_tiers.py" --ltt "$L" --work "$W/$n" --device cuda --gemm fp32 --json "$n.json" "$@"; }
( s main_adv 200 "$L" check --backend cuda --dims k3 --tp 8,16 --tokens 1,5,33,128,256,257,2048 --dist adversarial --json main_adv.json
  rows main_adv.json
  for a in one-shot ring; do
    s "cuda_s4_$a" 80 "$L" check --backend cuda --dims k3 --tp 8,16 --tokens 1,5,33 --dist adversarial --seed 4 --algo "$a" --json "cuda_s4_$a.json"
    rows "cuda_s4_$a.json"
  done
  s m8192_adv_t16 200 "$L" check --backend cuda --dims k3 --tokens 8192 --tp 16 --dist adversarial --json m8192_adv_t16.json
  rows m8192_adv_t16.json ) > "$R/phase_cuda.txt" 2>&1 &
( tt torch_k3_s4 150 --dims k3 --tp 8,16 --tokens 1,5,33,128 --dist adversarial --seed 4
  tt torch_k3_s4_ring 100 --dims k3 --tp 8,16 --tokens 1,5,33 --dist adversarial --seed 4 --algo ring
  tt torch_k3_s0 120 --dims k3 --tp 8,16 --tokens 1,5,33,128 --dist adversarial
  tt torch_k3_s4_norm 100 --dims k3 --tp 8,16 --tokens 1,5,33 --dist adversarial --seed 4 --rmsnorm torch --golden-norm fused
) > "$R/phase_torch.txt" 2>&1 &
wait
cat "$R/phase_cuda.txt" "$R/phase_torch.txt"
