# Forty-second session, call 2: call 1's PyTorch rings used bf16 addmm
# (torch_tiers.py's default --gemm bf16), which on these shapes rounds the
# product before it adds S, a rounding that tiers 0, 2, 3 and 4 do not
# allow; the ring's sets on exact inputs, no longer wide, now refuse it as
# one-shot's do. Here the same rings with the product kept in fp32 until the
# one rounding (--gemm fp32, the composition session 40 judged), small and
# k3, exact inputs included, and with F.rms_norm's own kernel; ltt's cuda
# backend's ring at M 2048 on exact inputs; and the main job's adversarial
# cases and the cuda mutants under the new binary.
. scripts/device-steps.sh
build
tt() { local n=$1 to=$2; shift 2; s "$n" "$to" python3 "$ROOT/scripts/torch_tiers.py" --ltt "$L" --work "$W/$n" --device cuda --gemm fp32 --json "$n.json" "$@"; }
( tt torch_small_ring 90 --dims small --tp 8,16 --tokens 1,5,33,129,257 --dist realistic,adversarial,exact --algo ring
  tt torch_small_ring_torchnorm 60 --dims small --tp 8,16 --tokens 5,33,257 --dist realistic,adversarial,exact --algo ring --rmsnorm torch --golden-norm fused
  tt torch_k3_ring_exact 150 --dims k3 --tp 8,16 --tokens 1,5,33,128,256 --dist exact --algo ring
) > "$R/phase_torch.txt" 2>&1 &
( s cuda_ring_m2048_exact 150 "$L" check --backend cuda --dims k3 --tp 8,16 --tokens 2048 --dist exact --algo ring --json cuda_ring_m2048_exact.json
  rows cuda_ring_m2048_exact.json
  s mutants_cuda 90 "$L" mutants --backend cuda --dims small --tp 8,16 --tokens 5,33 --dist adversarial --json mu.json
  s main_adv 240 "$L" check --backend cuda --dims k3 --tp 8,16 --tokens 1,5,33,128,256,257,2048 --dist adversarial --json main_adv.json
  rows main_adv.json ) > "$R/phase_cuda.txt" 2>&1 &
wait
cat "$R/phase_torch.txt" "$R/phase_cuda.txt"
