# Forty-third session, call 2, the H100 of call 1 if still warm (its build
# kept; rebuilt otherwise): the main job's other M 8192 cases under a4380d9's
# sets: adversarial at T 8 with the row check, realistic at T 8 and 16; to
# the deadline.
. scripts/device-steps.sh
[ -x "$L" ] || build ltt
K=(--backend cuda --dims k3 --tokens 8192)
s m8192_adv_t8 170 "$L" check "${K[@]}" --tp 8 --dist adversarial --json m8192_adv_t8.json
rows m8192_adv_t8.json
for t in 8 16; do
  s "m8192_realistic_t$t" 170 "$L" check "${K[@]}" --tp "$t" --dist realistic --json "m8192_realistic_t$t.json"
  rows "m8192_realistic_t$t.json"
done
