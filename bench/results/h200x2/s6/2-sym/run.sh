# Sixth session, call 2: ltt's collective kernels over NCCL symmetric windows
# (--peer-memory nccl) instead of CUDA IPC: the MPI tests, the np 2
# sweep over the windows (T 2 tier 0, T 8 and 16 every tier, k3, all
# distributions), tier 0 across the GPUs under compute-sanitizer, and the
# benchmark over both peer memories.
set -uo pipefail
R=$OUT/r; mkdir -p $R
export NCCL_NVLS_ENABLE=0 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_NUM_THREADS=2
t0=$(date +%s)
(cmake --preset release -DLTT_WITH_FUZZ=OFF -DCMAKE_CUDA_ARCHITECTURES=90 -DCMAKE_PREFIX_PATH=$PWD/.device-deps/usr > $R/build.log 2>&1 && cmake --build --preset release -j32 >> $R/build.log 2>&1) || { grep -E "error" $R/build.log | head; tail -30 $R/build.log; exit 2; }
echo "build $(( $(date +%s) - t0 )) s; warnings: $(grep -c -i warning $R/build.log)"
L=$PWD/build/release/bin/ltt
M="mpirun --allow-run-as-root --oversubscribe --bind-to none -x NCCL_NVLS_ENABLE -x OMP_NUM_THREADS"
s() { local n=$1 to=$2; shift 2; local a=$(date +%s); timeout $to "$@" > $R/$n.log 2>&1; echo "$n: exit $? $(( $(date +%s) - a )) s: $(grep -E '^# ([0-9]+ cases|Out of|Mutants)|ERROR SUMMARY|hazards' $R/$n.log | sort | uniq -c | tr '\n' ' ') ident $(grep -c 'bitwise identical' $R/$n.log) differ $(grep -c 'ranks differ' $R/$n.log) sym $(grep -c 'NCCL symmetric windows' $R/$n.log)"; grep -E "FAIL|ltt:|rror:" $R/$n.log | head -4; }
export -f s; export R L M
# A first small case alone: if the windows do not work here, say so early.
s sym_first 60 $M -np 2 $L check --backend cuda --peer-memory nccl --dims small --tp 2 --tier 0,1 --tokens 5 --dist realistic
(cd build/release && timeout 200 ctest -R 'gpu.ranks' > $R/ctest_ranks.log 2>&1; echo "ctest gpu.ranks*: $(grep -E 'tests passed' $R/ctest_ranks.log)"; grep -E "Failed|\*\*\*|Skipped|Not Run" $R/ctest_ranks.log)
: > $R/jobs.txt
echo "np2_t2_t0 200 $M -np 2 $L check --backend cuda --peer-memory nccl --dims k3 --tp 2 --tier 0 --dist all --tokens 1,5,33,128" >> $R/jobs.txt
for T in 8 16; do for d in realistic exact adversarial; do
  echo "np2_t${T}_${d}_small 330 $M -np 2 $L check --backend cuda --peer-memory nccl --dims k3 --tp $T --dist $d --tokens 1,5,33,128,256,257 --json $R/np2_t${T}_${d}_small.json" >> $R/jobs.txt
  echo "np2_t${T}_${d}_2048 330 $M -np 2 $L check --backend cuda --peer-memory nccl --dims k3 --tp $T --dist $d --tokens 2048 --json $R/np2_t${T}_${d}_2048.json" >> $R/jobs.txt
done; done
(xargs -P 7 -L 1 bash -c 's "$@"' _ < $R/jobs.txt) > $R/phase_sweep.txt 2>&1
cat $R/phase_sweep.txt
s np2_sym_memcheck 90 $M -np 2 compute-sanitizer --tool memcheck --error-exitcode 9 $L check --backend cuda --peer-memory nccl --dims small --tp 2,8 --tier 0 --tokens 5,16 --dist realistic
s np2_sym_racecheck 90 $M -np 2 compute-sanitizer --tool racecheck --error-exitcode 9 $L check --backend cuda --peer-memory nccl --dims small --tp 2,8 --tier 0 --tokens 5,16 --dist realistic
s bench_np2 150 $M -np 2 $L bench --backend cuda --peer-memory both --dims k3 --tp 2,8 --tokens 1,5,16,33,128 --json $R/bench_np2.json
grep -E "^ +(tier[0-9a-z-]+|ipc|sym|nccl) " $R/bench_np2.log | head -80
tar czf $OUT/r.tgz -C $OUT r
echo "total $(( $(date +%s) - t0 )) s"
