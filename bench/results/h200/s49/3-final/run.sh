# Forty-ninth session, call 3: the session's final code (call 1's tree plus
# the second review's mends: report paths and --out that are loops of links,
# FIFOs with no reader or writer, all in the harness). Every target built
# (gcc 13); the suite by the README's GPU-machine command (faults.unseen's
# new checks (g)-(i) among them); the speed figures where the card is an
# H200 (kernels as session 41's).
. scripts/device-steps.sh
build
s suite 200 "$ROOT/scripts/ctest-gpu-host.sh" -j8
tail -4 "$R/suite.out"
speed
