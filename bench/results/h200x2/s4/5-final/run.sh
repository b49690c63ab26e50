set -uo pipefail
R=$OUT/r; mkdir -p $R
export NCCL_NVLS_ENABLE=0 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_NUM_THREADS=8
t0=$(date +%s)
(cmake --preset release -DLTT_WITH_FUZZ=OFF -DCMAKE_CUDA_ARCHITECTURES=90 -DCMAKE_PREFIX_PATH=$PWD/.device-deps/usr > $R/build.log 2>&1 && cmake --build --preset release -j32 >> $R/build.log 2>&1) || { grep -E "error" $R/build.log | head; tail -30 $R/build.log; exit 2; }
echo "build $(( $(date +%s) - t0 )) s; warnings: $(grep -c -i warning $R/build.log)"
L=$PWD/build/release/bin/ltt
M="mpirun --allow-run-as-root --oversubscribe -x NCCL_NVLS_ENABLE -x OMP_NUM_THREADS"
s() { local n=$1 to=$2; shift 2; local a=$(date +%s); timeout $to "$@" > $R/$n.log 2>&1; echo "$n: exit $? $(( $(date +%s) - a )) s: $(grep -E '^# ([0-9]+ cases|Out of|Mutants)|ERROR SUMMARY|hazards' $R/$n.log | sort | uniq -c | tr '\n' ' ') ident $(grep -c 'bitwise identical' $R/$n.log) differ $(grep -c 'ranks differ' $R/$n.log)"; grep -E "FAIL|ltt:|rror:" $R/$n.log | head -4; }
(export CUDA_VISIBLE_DEVICES=1 OMP_NUM_THREADS=4
 (cd build/release && OMP_NUM_THREADS=3 timeout 150 ctest -R '^gpu\.|python' -j4 > $R/ctest_gpu.log 2>&1; echo "ctest gpu+python: $(grep -E 'tests passed' $R/ctest_gpu.log)"; grep -E "Failed|\*\*\*|Skipped|Not Run" $R/ctest_gpu.log)
 s t0_default 60 $L check --backend cuda --dims k3 --tp 8,16 --tier 0 --tokens 1,5,16,33,64,65,128 --dist all
 LTT_TIER0_PATH=fused s t0_fused 60 $L check --backend cuda --dims k3 --tp 8,16 --tier 0 --tokens 1,5,33,48 --dist all
 s san_racecheck 50 compute-sanitizer --tool racecheck --error-exitcode 9 $L check --backend cuda --dims small --tp 8 --tier 0 --tokens 5,33 --dist realistic) > $R/phase_gpu1.txt &
(export CUDA_VISIBLE_DEVICES=0
 s bench 100 $L bench --backend cuda --dims k3 --tp 8 --tokens 1,5,16,33,48,64,128 --json $R/bench.json
 s np8_t0 60 $M -np 8 $L check --backend cuda --dims k3 --tp 8 --tier 0 --tokens 1,33,64 --dist realistic,adversarial)
wait
cat $R/phase_gpu1.txt
grep -E "^ +(tier0-[a-z0-9-]+) " $R/bench.log | awk '{printf "%s %s %s %s\n", $1, $3, $4, $9}' | pr -3 -t -w 150 | head -40
tar czf $OUT/r.tgz -C $OUT r
echo "total $(( $(date +%s) - t0 )) s"
