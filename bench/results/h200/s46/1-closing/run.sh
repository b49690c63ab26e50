# Forty-sixth session, call 1, a fresh machine: the closing checks on this
# session's tree (ltt under valgrind: the allocator's re-execution skipped
# there, and the new valgrind.memcheck entry; ltt_exit_test's command handed
# to sh as arguments): every target built (gcc 13); whether valgrind is on
# this image (the suite's valgrind.memcheck runs where it is, and
# ctest-gpu-host.sh allows its skip where it is not); the closing checks (the suite by the README's GPU-machine
# command, the cuda mutants, process per rank against the fake ranks, the
# main job's adversarial cases under the row check); compute-sanitizer's
# four tools on a small case of every tier; the speed figures where the card
# is an H200; to the deadline.
# Order: what this tree changed first (the build, the suite), then the rest,
# so that a short call keeps the part that matters (three starts failed
# before this call ran).
. scripts/device-steps.sh
build
echo "valgrind: $(command -v valgrind || echo 'not installed')"
s suite 150 "$ROOT/scripts/ctest-gpu-host.sh" -j8
tail -4 "$R/suite.out"
grep -E "valgrind" "$R/suite.out"
s mutants_cuda 90 "$L" mutants --backend cuda --dims small --tp 8,16 --tokens 5,33 --dist adversarial --json mu.json
sanitize memcheck racecheck synccheck initcheck
s np8_k3 100 $M -np 8 "$L" check --backend cuda --dims k3 --tp 8 --tokens 1,33,257,2048 --dist adversarial --json np8_k3.json
rows np8_k3.json
s main_adv 240 "$L" check --backend cuda --dims k3 --tp 8,16 --tokens 1,5,33,128,256,257,2048 --dist adversarial --json main_adv.json
rows main_adv.json
speed
