# Forty-fifth session, call 2, a fresh machine: call 1's direct run of the
# admissible doctests (OMP_NUM_THREADS=8, where ctest gives each test 2)
# failed 2 test cases: FlushGuard let OpenMP workers that the runtime started
# inside it flush for good (fixed in 3b56db5, with a test). Here, on that
# fix: every target built; the admissible and harness suites in one process
# at 16 OpenMP threads, then the whole doctest binary at 8; random members of
# the family (ftz() among them) under ltt check at 8 threads; to the
# deadline (call 1 ran the suite by the README's GPU-machine command).
. scripts/device-steps.sh
build
T=$ROOT/build/release/bin/ltt_tests
s doctest_omp16 60 env OMP_NUM_THREADS=16 "$T" --no-version -tc="admissible*,harness*"
tail -3 "$R/doctest_omp16.out"
for a in one-shot ring; do
  s "var_omp8_$a" 60 env OMP_NUM_THREADS=8 "$L" check --backend cpu --dims small --tp 8,16 --tokens 5,33 --dist adversarial --algo "$a" --variant 0-99 --json "var_omp8_$a.json"
  grep -ohE '\([0-9]+ runs, [0-9]+ failed\)' "$R/var_omp8_$a.out"
done
s doctest_omp8 300 env OMP_NUM_THREADS=8 "$T" --no-version
tail -3 "$R/doctest_omp8.out"
