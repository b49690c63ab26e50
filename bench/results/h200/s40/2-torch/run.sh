# Fortieth session, call 2 (asked for nvidia-h200): the verdict on the
# closing code (07d32f6's; the row check of 2a545de and the narrowings of
# 0db2c99 and 3cf1a63 since session 29's PyTorch runs) against code that is
# not ltt's, at k3 and adversarial inputs (the row check's): PyTorch's own
# F.rms_norm in every tier against fused expected outputs (run at small sizes
# only before), T 8 and 16; torch.compile keeping the rounding points, T 8;
# the ring in the script's own rank order, T 8. GEMMs on fp32 copies (members
# of every tier's family). Correct outputs must pass, planted bugs fail. Then
# the speed figures if the card is an H200. To the deadline.
. scripts/device-steps.sh
build ltt
T=(python3 "$ROOT/scripts/torch_tiers.py" --ltt "$L" --device cuda --gemm fp32 --dims k3 --dist adversarial)
s torchnorm 150 "${T[@]}" --work "$W/tn" --tp 8,16 --tokens 5,33,128 --rmsnorm torch --golden-norm fused --json "$R/torchnorm.json" --out "$R/torchnorm.md"
s ring 90 "${T[@]}" --work "$W/tr" --tp 8 --tokens 5,33 --algo ring --json "$R/ring.json" --out "$R/ring.md"
s compile 160 "${T[@]}" --work "$W/tc" --tp 8 --tokens 5,33,128 --compile --keep-casts --json "$R/compile.json" --out "$R/compile.md"
speed
