# Fortieth session, call 1 (asked for nvidia-h200): the code of session 36
# (07d32f6's; since then records and scripts/device-steps.sh only, whose EXIT
# trap now copies the reports, prints `ltt --version` and the call's seconds).
# Build everything as the README's GPU-machine command does; the speed figures
# if the card is an H200; the whole suite by that command's ctest wrapper; to
# the deadline.
. scripts/device-steps.sh
build
speed
s suite 200 "$ROOT/scripts/ctest-gpu-host.sh" -j8
tail -6 "$R/suite.out"
