# Forty-fourth session, call 5, with the device time left (about 300 s): the
# GPU machine's build (Ubuntu 24.04, gcc 13) of every target on the final
# code (the second row check and its doctest), then that doctest and the
# other admissible tests; to the deadline.
. scripts/device-steps.sh
build
s admissible 60 "$ROOT/build/release/bin/ltt_tests" -tc="admissible*"
tail -3 "$R/admissible.out"
