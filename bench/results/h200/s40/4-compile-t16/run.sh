# Fortieth session, call 4 (asked for nvidia-h200, a second try for the card
# the speed targets name): the speed figures if the card is an H200; then
# torch.compile keeping the rounding points (run at T 8 in call 2, before the
# row-check counts) at T 16, k3, adversarial, fp32 GEMMs, with the counts.
# To the deadline.
. scripts/device-steps.sh
build ltt
speed
s compile_t16 200 python3 "$ROOT/scripts/torch_tiers.py" --ltt "$L" --device cuda --gemm fp32 --dims k3 --dist adversarial \
  --work "$W/tc" --tp 16 --tokens 5,33,128 --compile --keep-casts --json "$R/compile_t16.json" --out "$R/compile_t16.md"
