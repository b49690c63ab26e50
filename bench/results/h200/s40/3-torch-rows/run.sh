# Fortieth session, call 3 (asked for nvidia-h200): call 2's PyTorch tiers
# again with scripts/torch_tiers.py now keeping ltt verify's row-check counts,
# so the totals say how many rows of PyTorch's correct outputs the row check
# judged whole and how many lay outside: F.rms_norm against fused expected
# outputs (T 8 and 16, M 5, 33, 128 and 257) and the ring (T 8, M 5 and 33),
# k3, adversarial, fp32 GEMMs. Then the speed figures if the card is an H200.
# To the deadline.
. scripts/device-steps.sh
build ltt
T=(python3 "$ROOT/scripts/torch_tiers.py" --ltt "$L" --device cuda --gemm fp32 --dims k3 --dist adversarial)
s torchnorm 220 "${T[@]}" --work "$W/tn" --tp 8,16 --tokens 5,33,128,257 --rmsnorm torch --golden-norm fused --json "$R/torchnorm.json" --out "$R/torchnorm.md"
s ring 90 "${T[@]}" --work "$W/tr" --tp 8 --tokens 5,33 --algo ring --json "$R/ring.json" --out "$R/ring.md"
speed
