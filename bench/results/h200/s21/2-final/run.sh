# Twenty-first session, call 2 (one H200): the session's final code (shell-
# quoted reproduce lines, verify's run notes in every report, golden
# --hash-only and regress hashing in memory, mutants refusing before its
# first line): the build, the GPU suite, the process-per-rank entries, the
# rest of the suite on 16 cores, then mpirun -np 8 bit for bit against fake
# ranks on a short k3 list and memcheck on a small case of every tier.
set -uo pipefail
R=$OUT/r; mkdir -p $R
export NCCL_NVLS_ENABLE=0 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_NUM_THREADS=4
t0=$(date +%s)
(cmake --preset release -DLTT_WITH_FUZZ=OFF -DCMAKE_CUDA_ARCHITECTURES=90 -DCMAKE_PREFIX_PATH=$PWD/.device-deps/usr > $R/build.log 2>&1 && cmake --build --preset release -j16 >> $R/build.log 2>&1) || { grep -E "error" $R/build.log | head; tail -30 $R/build.log; exit 2; }
echo "build $(( $(date +%s) - t0 )) s; warnings: $(grep -c -i warning $R/build.log)"
L=$PWD/build/release/bin/ltt
M="mpirun --allow-run-as-root --oversubscribe --bind-to none -x NCCL_NVLS_ENABLE -x OMP_NUM_THREADS"
s() { local n=$1 to=$2; shift 2; local a=$(date +%s); timeout $to "$@" > $R/$n.log 2>&1; echo "$n: exit $? $(( $(date +%s) - a )) s: $(grep -E '^# ([0-9]+ cases|Out of|Mutants)|ERROR SUMMARY' $R/$n.log | sort | uniq -c | tr '\n' ' ') ident $(grep -c 'bitwise identical' $R/$n.log) differ $(grep -c 'ranks differ' $R/$n.log)"; grep -E "FAIL|ltt:|rror:|wrong" $R/$n.log | head -4; }
(cd build/release && timeout 200 ctest -R '^gpu\.|python|lt_inplace' -E 'ranks' -j4 > $R/ctest_gpu.log 2>&1; echo "ctest gpu: $(grep -E 'tests passed' $R/ctest_gpu.log) $(( $(date +%s) - t0 )) s"; grep -E "Failed|\*\*\*|Not Run|Timeout" $R/ctest_gpu.log
 timeout 90 ctest -R 'gpu.ranks' > $R/ctest_ranks.log 2>&1; echo "ctest gpu.ranks*: $(grep -E 'tests passed' $R/ctest_ranks.log)"; grep -E "Failed|\*\*\*|Not Run|Timeout" $R/ctest_ranks.log
 timeout 200 ctest -E '^gpu\.|python|lt_inplace' -j8 > $R/ctest_rest.log 2>&1; echo "ctest rest: $(grep -E 'tests passed' $R/ctest_rest.log) $(( $(date +%s) - t0 )) s"; grep -E "Failed|\*\*\*|Not Run|Timeout" $R/ctest_rest.log)
s san_memcheck 60 compute-sanitizer --tool memcheck --error-exitcode 9 $L check --backend cuda --dims small --tp 8 --tokens 5,33 --dist realistic
s np8_k3 120 $M -np 8 $L check --backend cuda --dims k3 --tp 8 --tokens 1,33,257 --dist realistic --json $R/np8_k3.json
echo "total $(( $(date +%s) - t0 )) s"
tar czf $OUT/r.tgz -C $OUT r
