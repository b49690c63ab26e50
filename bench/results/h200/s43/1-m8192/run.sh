# Forty-third session, call 1: the main job's M 8192 cases under the sets of
# a4380d9 (terms read by their lowest set bit; M 8192 last ran in session 39,
# on 07d32f6's sets). Build ltt; the speed figures if the card is an H200
# (kernels unchanged since session 41); then M 8192 at k3: exact at T 8 and
# 16 (where the change narrows sets most), adversarial at T 16 with the row
# check; to the deadline.
. scripts/device-steps.sh
build ltt
speed
K=(--backend cuda --dims k3 --tokens 8192)
for t in 8 16; do
  s "m8192_exact_t$t" 170 "$L" check "${K[@]}" --tp "$t" --dist exact --json "m8192_exact_t$t.json"
  rows "m8192_exact_t$t.json"
done
s m8192_adv_t16 200 "$L" check "${K[@]}" --tp 16 --dist adversarial --json m8192_adv_t16.json
rows m8192_adv_t16.json
