# Forty-fourth session, call 1 (asked as nvidia-h200): build ltt; the speed
# figures if the card is an H200 (kernels unchanged since session 41); the
# one case session 43's call 3 cut by its step limit: ltt's cuda ring, k3,
# M 8192, exact, T 16, tier 4; then compute-sanitizer's memcheck and
# racecheck on a small case of every tier; to the deadline.
. scripts/device-steps.sh
[ -x "$L" ] || build ltt
speed
s ring8192_exact_t16_tier4 260 "$L" check --backend cuda --dims k3 --tokens 8192 --tp 16 --dist exact --algo ring --tier 4 --json ring8192_exact_t16_tier4.json
rows ring8192_exact_t16_tier4.json
sanitize memcheck racecheck
