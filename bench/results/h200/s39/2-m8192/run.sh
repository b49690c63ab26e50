# Thirty-ninth session, call 2 (asked for nvidia-h200): the same tree as call
# 1 (07d32f6's code). Build ltt; the speed figures if the card is an H200;
# then the main job's M 8192 cases that have not run on 07d32f6's code:
# adversarial at T 16 with the row check first (session 37 ran T 8), then
# exact and realistic at T 16 and T 8; to the deadline.
. scripts/device-steps.sh
build ltt
speed
K=(--backend cuda --dims k3 --tokens 8192)
s m8192_adv_t16 200 "$L" check "${K[@]}" --tp 16 --dist adversarial --json m8192_adv_t16.json
rows m8192_adv_t16.json
for d in exact realistic; do
  for t in 16 8; do
    s "m8192_${d}_t$t" 170 "$L" check "${K[@]}" --tp "$t" --dist "$d" --json "m8192_${d}_t$t.json"
    rows "m8192_${d}_t$t.json"
  done
done
(cd "$W" && cp ./*.json "$R/" 2>/dev/null)
"$L" --version
echo "total $(( $(date +%s) - t0 )) s"
