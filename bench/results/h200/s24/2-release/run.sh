# Twenty-fourth session, call 2 (one H200): the tree after the GPU review
# (c5484b4: releases checked or said, probes clear their errors, the GPU
# peers' MPI waits tell the watchdog): build; the GPU suite, the
# process-per-rank entries and the rest; the four compute-sanitizer tools
# on a small case of every tier; mpirun -np 8 bit for bit against fake
# ranks; the cuda mutants; and, beside the suite, the main job's M 8192 at
# T 16 on adversarial inputs, the case cut by call 4's limit last session.
set -uo pipefail
R=$OUT/r; mkdir -p $R
export NCCL_NVLS_ENABLE=0 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_NUM_THREADS=4
t0=$(date +%s)
(cmake --preset release -DLTT_WITH_FUZZ=OFF -DCMAKE_CUDA_ARCHITECTURES=90 -DCMAKE_PREFIX_PATH=$PWD/.device-deps/usr > $R/build.log 2>&1 && cmake --build --preset release -j16 >> $R/build.log 2>&1) || { grep -E "error" $R/build.log | head; tail -30 $R/build.log; exit 2; }
echo "build $(( $(date +%s) - t0 )) s; warnings: $(grep -c -i warning $R/build.log)"
L=$PWD/build/release/bin/ltt
M="mpirun --allow-run-as-root --oversubscribe --bind-to none -x NCCL_NVLS_ENABLE -x OMP_NUM_THREADS"
s() { local n=$1 to=$2; shift 2; local a=$(date +%s); timeout $to "$@" > $R/$n.log 2>&1; echo "$n: exit $? $(( $(date +%s) - a )) s: $(grep -E '^# ([0-9]+ cases?,|Out of|Mutants|the production gate catches)|ERROR SUMMARY|RACECHECK SUMMARY' $R/$n.log | sort | uniq -c | tr '\n' ' ') ident $(grep -c 'bitwise identical' $R/$n.log) differ $(grep -c 'ranks differ' $R/$n.log)"; grep -E "FAIL|ltt:|rror:|wrong" $R/$n.log | head -4; }
( (cd build/release && timeout 200 ctest -R '^gpu\.|python|lt_inplace' -E 'ranks' -j4 > $R/ctest_gpu.log 2>&1; echo "ctest gpu: $(grep -E 'tests passed' $R/ctest_gpu.log)"; grep -E "Failed|\*\*\*|Not Run|Timeout" $R/ctest_gpu.log
   timeout 90 ctest -R 'gpu.ranks' > $R/ctest_ranks.log 2>&1; echo "ctest gpu.ranks*: $(grep -E 'tests passed' $R/ctest_ranks.log)"; grep -E "Failed|\*\*\*|Not Run|Timeout" $R/ctest_ranks.log
   timeout 200 ctest -E '^gpu\.|python|lt_inplace' -j6 > $R/ctest_rest.log 2>&1; echo "ctest rest: $(grep -E 'tests passed' $R/ctest_rest.log)"; grep -E "Failed|\*\*\*|Not Run|Timeout" $R/ctest_rest.log)
 for tool in memcheck racecheck synccheck initcheck; do
   s san_$tool 60 compute-sanitizer --tool $tool --error-exitcode 9 $L check --backend cuda --dims small --tp 8 --tokens 5,33 --dist realistic
 done
 s np8_small 100 $M -np 8 $L check --backend cuda --dims k3 --tp 8 --tokens 1,33 --dist realistic,adversarial --json $R/np8.json
 s mutants_oneshot 90 $L mutants --backend cuda --dims small --tp 8,16 --tokens 5,33
 s mutants_ring 90 $L mutants --backend cuda --dims small --tp 8,16 --tokens 5,33 --algo ring) > $R/phase_a.txt 2>&1 &
OMP_NUM_THREADS=10 s m8192_t16_adv 330 $L check --backend cuda --dims k3 --tp 16 --tokens 8192 --dist adversarial --json $R/m8192_t16_adv.json --markdown $R/m8192_t16_adv.md > $R/phase_b.txt 2>&1 &
wait
grep -E "^ +[0-9] +16 +8192" $R/m8192_t16_adv.log
cat $R/phase_a.txt $R/phase_b.txt
echo "total $(( $(date +%s) - t0 )) s"
tar czf $OUT/r.tgz -C $OUT r
