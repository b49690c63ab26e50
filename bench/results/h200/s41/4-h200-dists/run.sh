# Forty-first session, call 4, the same H200 still warm (call 2's build
# kept): the main job's other two distributions, realistic and exact, at
# M 1..2048, T 8 and 16, k3, every tier where it applies (call 3 ran the
# adversarial ones). To the deadline.
. scripts/device-steps.sh
[ -x "$L" ] || { echo "no ltt binary kept from call 2: not run"; exit 2; }
s main_re 390 "$L" check --backend cuda --dims k3 --tp 8,16 --tokens 1,5,33,128,256,257,2048 --dist realistic,exact --json main_re.json
rows main_re.json
