# Forty-fourth session, call 4 (calls 1 to 3's machine went back idle before
# it; a first try found no machine): ltt's cuda ring at M 8192 on the
# distributions sessions 43 and 44 had not run it on: adversarial T 8 (row
# check), then realistic T 16; to the deadline.
. scripts/device-steps.sh
[ -x "$L" ] || build ltt
K=(--backend cuda --dims k3 --tokens 8192 --algo ring)
s ring8192_adv_t8 180 "$L" check "${K[@]}" --tp 8 --dist adversarial --json ring8192_adv_t8.json
rows ring8192_adv_t8.json
s ring8192_real_t16 200 "$L" check "${K[@]}" --tp 16 --dist realistic --json ring8192_real_t16.json
rows ring8192_real_t16.json
