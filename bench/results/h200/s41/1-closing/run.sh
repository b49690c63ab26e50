# Forty-first session, call 1 (asked for nvidia-h200): the closing tree's
# checks, through the new `closing` and `sanitize` helpers of
# scripts/device-steps.sh, on the card the issue names if given (the suite
# last ran on an H200 in session 28, before the row check). Build
# everything; the suite, the cuda mutants, process per rank against the fake
# ranks, the main job's adversarial cases; compute-sanitizer's four tools on
# a small case of every tier; the speed figures last, on an H200 only. To the
# deadline.
. scripts/device-steps.sh
build
closing
sanitize memcheck racecheck synccheck initcheck
speed
