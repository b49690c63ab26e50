# Forty-first session, call 3, on the H200 call 2's fifth try was given,
# still warm (its build kept: no rebuild): what that try's deadline cut. The
# main job's adversarial cases at M 1..2048 under the row check (cut at its
# 150 s there; 91 s on call 1's H100), and compute-sanitizer's racecheck,
# synccheck and initcheck on a small case of every tier.
. scripts/device-steps.sh
[ -x "$L" ] || { echo "no ltt binary kept from call 2: not run"; exit 2; }
s main_adv 330 "$L" check --backend cuda --dims k3 --tp 8,16 --tokens 1,5,33,128,256,257,2048 --dist adversarial --json main_adv.json
rows main_adv.json
sanitize racecheck synccheck initcheck
