# Forty-fifth session, call 1, a fresh machine, on the final code of session
# 44 (307d504; its verdict code is 02939fb's): build every target (what
# session 44's refused fifth call was for: the GPU machine's gcc 13 build of
# the test sources on the final code), the admissible doctests, the closing
# checks (the suite by the README's GPU-machine command, the cuda mutants,
# process per rank against the fake ranks, the main job's adversarial cases
# under the row check); the speed figures where the card is an H200; to the
# deadline.
. scripts/device-steps.sh
build
s admissible 60 "$ROOT/build/release/bin/ltt_tests" -tc="admissible*"
tail -3 "$R/admissible.out"
closing
speed
