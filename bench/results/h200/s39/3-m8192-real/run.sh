# Thirty-ninth session, call 3 (asked for nvidia-h200): the same code as calls
# 1 and 2 (07d32f6's). Build ltt; the main job's realistic cases at M 8192,
# T 16 and T 8, which call 2's deadline cut; to the deadline. (No speed step:
# the device time left would not cover it and these cases.)
. scripts/device-steps.sh
build ltt
K=(--backend cuda --dims k3 --tokens 8192 --dist realistic)
for t in 16 8; do
  s "m8192_realistic_t$t" 170 "$L" check "${K[@]}" --tp "$t" --json "m8192_realistic_t$t.json"
  rows "m8192_realistic_t$t.json"
done
(cd "$W" && cp ./*.json "$R/" 2>/dev/null)
"$L" --version
echo "total $(( $(date +%s) - t0 )) s"
