# Forty-third session, call 4: what call 3's step limit cut, on the device
# time left: ltt's cuda ring at M 8192, exact, T 16, tier 4 alone. Build
# ltt; to the deadline.
. scripts/device-steps.sh
[ -x "$L" ] || build ltt
s ring8192_exact_t16_tier4 200 "$L" check --backend cuda --dims k3 --tokens 8192 --tp 16 --tier 4 --dist exact --algo ring --json ring8192_exact_t16_tier4.json
rows ring8192_exact_t16_tier4.json
