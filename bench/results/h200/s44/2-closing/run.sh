# Forty-fourth session, call 2, call 1's machine kept warm (its build kept):
# compute-sanitizer's synccheck and initcheck on a small case of every tier
# (call 1 ran memcheck and racecheck), then the closing checks: the suite by
# the README's GPU-machine command, the cuda mutants, process per rank
# (mpirun -np 8, one GPU) against the fake ranks, the main job's adversarial
# cases at M 1..2048 under the row check; to the deadline.
. scripts/device-steps.sh
[ -x "$L" ] || build ltt
sanitize synccheck initcheck
closing
