# Tenth session, call 3 (one H200): the final tree. W's shard brought into
# L2 by the kernel before tier 0's step (the collective in the pipeline; the
# RMSNorm kernel, chained behind the call before, in the bench's -warm rows,
# which tier0-rank now reports). The GPU suite (the block-a-row RMSNorm
# kernel, which every tier runs, changed), the sanitizers on the changed
# kernels, tier 0 at k3 over every M its paths take, one process per rank
# against the fake-rank run bit for bit, then tier 0's and RMSNorm's rows.
set -uo pipefail
R=$OUT/r; mkdir -p $R
export NCCL_NVLS_ENABLE=0 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_NUM_THREADS=4
t0=$(date +%s)
(cmake --preset release -DLTT_WITH_FUZZ=OFF -DCMAKE_CUDA_ARCHITECTURES=90 -DCMAKE_PREFIX_PATH=$PWD/.device-deps/usr > $R/build.log 2>&1 && cmake --build --preset release -j16 >> $R/build.log 2>&1) || { grep -E "error" $R/build.log | head; tail -30 $R/build.log; tar czf $OUT/r.tgz -C $OUT r; exit 2; }
echo "build $(( $(date +%s) - t0 )) s; warnings: $(grep -c -i warning $R/build.log)"
L=$PWD/build/release/bin/ltt
M="mpirun --allow-run-as-root --oversubscribe --bind-to none -x NCCL_NVLS_ENABLE -x OMP_NUM_THREADS"
s() { local n=$1 to=$2; shift 2; local a=$(date +%s); timeout $to "$@" > $R/$n.log 2>&1; echo "$n: exit $? $(( $(date +%s) - a )) s: $(grep -E '^# ([0-9]+ cases|Out of|Mutants)|ERROR SUMMARY|hazards|test cases' $R/$n.log | sort | uniq -c | tr '\n' ' ') ident $(grep -c 'bitwise identical' $R/$n.log) differ $(grep -c 'ranks differ' $R/$n.log)"; grep -E "FAIL|ltt:|rror:|wrong" $R/$n.log | head -4; }
(cd build/release && timeout 300 ctest -R '^gpu\.|python' -E 'ranks_' -j4 > $R/ctest_gpu.log 2>&1; echo "ctest gpu: $(grep -E 'tests passed' $R/ctest_gpu.log)"; grep -E "Failed|\*\*\*|Not Run" $R/ctest_gpu.log) > $R/phase_ctest.txt 2>&1 &
(for tool in memcheck racecheck synccheck initcheck; do
   s san_$tool 60 compute-sanitizer --tool $tool --error-exitcode 9 $L check --backend cuda --dims 1024,512 --tp 8 --tier 0 --tokens 1,17 --dist realistic
 done
 s sanb_memcheck 90 compute-sanitizer --tool memcheck --error-exitcode 9 $L bench --backend cuda --dims 1024,512 --tp 8 --tier 0 --tokens 1,17 --reps 2
 s sanb_racecheck 90 compute-sanitizer --tool racecheck --error-exitcode 9 $L bench --backend cuda --dims 1024,512 --tp 8 --tier 0 --tokens 1,17 --reps 2) > $R/phase_san.txt 2>&1 &
(s t0_k3 200 $L check --backend cuda --dims k3 --tp 8,16 --tier 0 --tokens 1,5,16,17,33,48,64,65,90,96,97,112,128 --dist all --json $R/t0_k3.json
 s np8_t0 150 $M -np 8 $L check --backend cuda --dims k3 --tp 8 --tier 0 --tokens 1,17,64,96,128 --dist realistic,adversarial) > $R/phase_k3.txt 2>&1 &
wait
cat $R/phase_ctest.txt $R/phase_san.txt $R/phase_k3.txt
(cd build/release && timeout 60 ctest -R 'gpu.ranks' > $R/ctest_ranks.log 2>&1; echo "ctest gpu.ranks*: $(grep -E 'tests passed' $R/ctest_ranks.log)"; grep -E "Failed|\*\*\*|Not Run" $R/ctest_ranks.log)
s bench 150 $L bench --backend cuda --dims k3 --tp 8,16 --tier 0 --tokens 1,5,8,16,17,33,48,64,96,112,128 --json $R/bench.json
grep -hE "^ +(tier0-(rank|mma|mma-warm|mma-kernel|gemv-split|gemv-split-warm|cublas)|read-tier0) " $R/bench.log | awk '{print $1, $2, $3, $4}' | sort -k1,1 -k2n -k3n | awk '{a[$1" T"$2]=a[$1" T"$2]" "$3":"$4} END{for(k in a) print k, a[k]}' | sort
grep -E "^ +tier0-rank " $R/bench.log
tar czf $OUT/r.tgz -C $OUT r
echo "total $(( $(date +%s) - t0 )) s"
