# Forty-third session, call 3, the H100 of calls 1 and 2 if still warm
# (rebuilt otherwise): ltt's cuda backend with its own ring order at the main
# job's largest M, 8192, exact inputs (where a4380d9 judges a ring as sharply
# as one-shot; session 42 ran M <= 2048), T 8 and 16; then process per rank
# (mpirun -np 8, one GPU) against the fake ranks, bitwise; to the deadline.
. scripts/device-steps.sh
[ -x "$L" ] || build ltt
for t in 8 16; do
  s "ring8192_exact_t$t" 150 "$L" check --backend cuda --dims k3 --tokens 8192 --tp "$t" --dist exact --algo ring --json "ring8192_exact_t$t.json"
  rows "ring8192_exact_t$t.json"
done
s np8_k3 100 $M -np 8 "$L" check --backend cuda --dims k3 --tp 8 --tokens 1,33,257,2048 --dist adversarial --json np8_k3.json
rows np8_k3.json
