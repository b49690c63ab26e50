# Fiftieth session, call 2: the session's final code (call 1's tree plus
# a73b39a and afc1d56: check --mutant names the tiers that ran without it,
# with faults.unseen 14(d)). Every target built (gcc 13); the suite by the
# README's GPU-machine command.
. scripts/device-steps.sh
build
s suite 200 "$ROOT/scripts/ctest-gpu-host.sh" -j8
tail -4 "$R/suite.out"
