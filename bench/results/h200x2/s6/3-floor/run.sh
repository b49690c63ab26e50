# Sixth session, call 3: tier 0's read floor (read-tier0: a kernel that only
# reads the step's bytes) beside its rows at T 8; tier 0's rows at T 2 and 4
# (larger shards: which path wins there); memcheck of the symmetric-window
# path with NCCL's own API errors (its init probes) left out.
set -uo pipefail
R=$OUT/r; mkdir -p $R
export NCCL_NVLS_ENABLE=0 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_NUM_THREADS=4
t0=$(date +%s)
(cmake --preset release -DLTT_WITH_FUZZ=OFF -DCMAKE_CUDA_ARCHITECTURES=90 -DCMAKE_PREFIX_PATH=$PWD/.device-deps/usr > $R/build.log 2>&1 && cmake --build --preset release -j32 >> $R/build.log 2>&1) || { grep -E "error" $R/build.log | head; tail -30 $R/build.log; exit 2; }
echo "build $(( $(date +%s) - t0 )) s; warnings: $(grep -c -i warning $R/build.log)"
L=$PWD/build/release/bin/ltt
M="mpirun --allow-run-as-root --oversubscribe --bind-to none -x NCCL_NVLS_ENABLE -x OMP_NUM_THREADS"
s() { local n=$1 to=$2; shift 2; local a=$(date +%s); timeout $to "$@" > $R/$n.log 2>&1; echo "$n: exit $? $(( $(date +%s) - a )) s: $(grep -E '^# ([0-9]+ cases|Out of|Mutants)|ERROR SUMMARY|hazards' $R/$n.log | sort | uniq -c | tr '\n' ' ') ident $(grep -c 'bitwise identical' $R/$n.log) sym $(grep -c 'NCCL symmetric windows' $R/$n.log)"; grep -E "FAIL|ltt:|rror:" $R/$n.log | head -4; }
(export CUDA_VISIBLE_DEVICES=0
 s bench_t8 150 $L bench --backend cuda --dims k3 --tp 8 --tier 0 --tokens 1,5,16,33,64,128 --json $R/bench_t8.json) > $R/phase0.txt 2>&1 &
(export CUDA_VISIBLE_DEVICES=1
 s bench_t2 200 $L bench --backend cuda --dims k3 --tp 2,4 --tier 0 --tokens 1,16,17,33,64,128 --json $R/bench_t2.json) > $R/phase1.txt 2>&1
wait
cat $R/phase0.txt $R/phase1.txt
s np2_sym_memcheck 90 $M -np 2 compute-sanitizer --tool memcheck --report-api-errors no --error-exitcode 9 $L check --backend cuda --peer-memory nccl --dims small --tp 2,8 --tier 0 --tokens 5,16 --dist realistic
s np2_sym_memcheck_all 90 $M -np 2 compute-sanitizer --tool memcheck --report-api-errors no --error-exitcode 9 $L check --backend cuda --peer-memory nccl --dims small --tp 2 --tier 1,2,3,4 --tokens 5,33 --dist realistic
grep -hE "^ +(tier0-[a-z0-9-]+|read-tier0) " $R/bench_t8.log $R/bench_t2.log | awk '{print $1, $2, $3, $4, $7, $8}' | grep -v "fused-c"
tar czf $OUT/r.tgz -C $OUT r
echo "total $(( $(date +%s) - t0 )) s"
