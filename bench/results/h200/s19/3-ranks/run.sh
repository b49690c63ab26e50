# Nineteenth session, call 3 (one H200): the final tree's process-per-rank
# entries and mpirun -np 8 bit for bit against fake ranks (check.cpp changed:
# mutant refusals, dump names); the cuda backend's mutants at T 2 and 8 (the
# mutants' least T and the cases they need); a cuda failure dump's name.
set -uo pipefail
R=$OUT/r; mkdir -p $R
export NCCL_NVLS_ENABLE=0 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_NUM_THREADS=4
t0=$(date +%s)
(cmake --preset release -DLTT_WITH_FUZZ=OFF -DCMAKE_CUDA_ARCHITECTURES=90 -DCMAKE_PREFIX_PATH=$PWD/.device-deps/usr > $R/build.log 2>&1 && cmake --build --preset release -j16 >> $R/build.log 2>&1) || { grep -E "error" $R/build.log | head; tail -30 $R/build.log; tar czf $OUT/r.tgz -C $OUT r; exit 2; }
echo "build $(( $(date +%s) - t0 )) s; warnings: $(grep -c -i warning $R/build.log)"
L=$PWD/build/release/bin/ltt
M="mpirun --allow-run-as-root --oversubscribe --bind-to none -x NCCL_NVLS_ENABLE -x OMP_NUM_THREADS"
(cd build/release && timeout 120 ctest -R 'gpu.ranks|gpu.mutants|faults.robust' -j4 > $R/ctest.log 2>&1; echo "ctest: $(grep -E 'tests passed' $R/ctest.log)"; grep -E "Failed|\*\*\*|Not Run|Timeout" $R/ctest.log)
timeout 200 $M -np 8 $L check --backend cuda --dims k3 --tp 8 --tokens 1,33,257 --dist realistic --json $R/np8.json > $R/np8.log 2>&1; echo "np8 exit $?: $(grep -E '^# [0-9]+ cases' $R/np8.log) identical $(grep -c 'bitwise identical' $R/np8.log) differ $(grep -c 'ranks differ' $R/np8.log)"
timeout 120 $L mutants --backend cuda --dims small --tp 2,8 --tokens 5 --dist realistic --json $R/mut_t2.json > $R/mut_t2.log 2>&1; echo "mutants cuda T 2,8 realistic exit $?"; grep -E 'MISSED|Mutants caught|not run|shows only' $R/mut_t2.log
timeout 120 $L mutants --backend cuda --dims small --tp 2,8 --tokens 5,33 --dist realistic,adversarial > $R/mut_t2_adv.log 2>&1; echo "mutants cuda T 2,8 both dists exit $?"; grep -E 'MISSED|Mutants caught|not run' $R/mut_t2_adv.log
timeout 60 $L check --backend cuda --dims small --tp 8 --tokens 5 --tier 1 --dist realistic --mutant eps-x10 --dump-dir $R/dumps > $R/dump.log 2>&1; echo "dump exit $?: $(ls $R/dumps)"
tar czf $OUT/r.tgz -C $OUT r
echo "total $(( $(date +%s) - t0 )) s"
