# Thirty-ninth session, call 1 (asked for nvidia-h200): the tree of session
# 38's stop (07d32f6's code; records and the speed helper since). Build ltt;
# the speed figures if the card is an H200 (the helper's branch that has not
# yet run); then the main job at k3, T 8 and 16, M 1 .. 2048, every
# distribution, with the row check on the adversarial cases: sessions 34 and
# 36 ran it on the code before 07d32f6's AdmCtx::reduce_roundings; to the
# deadline.
. scripts/device-steps.sh
build ltt
speed
K3=(--backend cuda --dims k3 --tp 8,16 --tokens 1,5,33,128,256,257,2048)
s main_exact 150 "$L" check "${K3[@]}" --dist exact --json main_exact.json
rows main_exact.json
s main_real 150 "$L" check "${K3[@]}" --dist realistic --json main_real.json
rows main_real.json
s main_adv 200 "$L" check "${K3[@]}" --dist adversarial --json main_adv.json
rows main_adv.json
(cd "$W" && cp ./*.json "$R/" 2>/dev/null)
"$L" --version
echo "total $(( $(date +%s) - t0 )) s"
