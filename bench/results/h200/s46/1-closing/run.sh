# Forty-sixth session, call 1, a fresh machine: the closing checks on this
# session's tree (ltt under valgrind: the allocator's re-execution skipped
# there, and the new valgrind.memcheck entry; ltt_exit_test's command handed
# to sh as arguments): every target built (gcc 13); whether valgrind is on
# this image (the suite's valgrind.memcheck runs where it is, and
# ctest-gpu-host.sh allows its skip where it is not); the doctest binary at
# 8 OpenMP threads; the closing checks (the suite by the README's GPU-machine
# command, the cuda mutants, process per rank against the fake ranks, the
# main job's adversarial cases under the row check); compute-sanitizer's
# four tools on a small case of every tier; the speed figures where the card
# is an H200; to the deadline.
. scripts/device-steps.sh
build
echo "valgrind: $(command -v valgrind || echo 'not installed')"
s doctest_omp8 120 env OMP_NUM_THREADS=8 "$ROOT/build/release/bin/ltt_tests" --no-version
tail -3 "$R/doctest_omp8.out"
closing
sanitize memcheck racecheck synccheck initcheck
speed
