# Twenty-eighth session, call 1 (one H200): every check on this session's
# first tree (6e73291; no GPU code and no verdict code changed since session
# 24): the build; the whole suite by the README's GPU-machine command; the four
# compute-sanitizer tools on a small case of every tier and on the mutant
# gemm-round-then-add's path; ltt mutants on the cuda backend; mpirun -np 8 bit
# for bit against fake ranks; beside them the main job on fake ranks (k3, T 8
# and 16, every tier, M 1 .. 2048, all distributions).
set -uo pipefail
R=$OUT/r; mkdir -p $R
export NCCL_NVLS_ENABLE=0 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_NUM_THREADS=4
t0=$(date +%s)
(cmake --preset release -DLTT_WITH_FUZZ=OFF -DCMAKE_CUDA_ARCHITECTURES=90 -DCMAKE_PREFIX_PATH=$PWD/.device-deps/usr > $R/build.log 2>&1 && cmake --build --preset release -j16 >> $R/build.log 2>&1) || { grep -E "error" $R/build.log | head; tail -30 $R/build.log; tar czf $OUT/r.tgz -C $OUT r; exit 2; }
echo "build $(( $(date +%s) - t0 )) s; warnings: $(grep -c -i warning $R/build.log)"
L=$PWD/build/release/bin/ltt
M="mpirun --allow-run-as-root --oversubscribe --bind-to none -x NCCL_NVLS_ENABLE -x OMP_NUM_THREADS"
s() { local n=$1 to=$2; shift 2; local a=$(date +%s); timeout $to "$@" > $R/$n.log 2>&1; echo "$n: exit $? $(( $(date +%s) - a )) s: $(grep -E '^# ([0-9]+ cases|Out of|Mutants)|ERROR SUMMARY|RACECHECK SUMMARY' $R/$n.log | sort | uniq -c | tr '\n' ' ') ident $(grep -c 'bitwise identical' $R/$n.log) differ $(grep -c 'ranks differ' $R/$n.log)"; grep -E "FAIL|ltt:|rror:|wrong" $R/$n.log | head -4; }
( a=$(date +%s); OMP_NUM_THREADS=2 timeout 240 scripts/ctest-gpu-host.sh -j6 > $R/ctest_all.log 2>&1; echo "ctest-gpu-host, whole suite: exit $? $(( $(date +%s) - a )) s"
  grep -E "tests passed|tests failed|ctest-gpu-host|\(Failed\)|Timeout" $R/ctest_all.log
 for tool in memcheck racecheck synccheck initcheck; do
   s san_$tool 60 compute-sanitizer --tool $tool --error-exitcode 9 $L check --backend cuda --dims small --tp 8 --tokens 5,33 --dist realistic
   s san_rta_$tool 60 compute-sanitizer --tool $tool --error-exitcode 9 $L check --backend cuda --dims small --tp 8 --tier 0,2,3,4 --tokens 5,33 --dist realistic --mutant gemm-round-then-add
 done
 s mutants 60 $L mutants --backend cuda --dims small --tp 8,16 --tokens 5,33 --json $R/mutants.json
 s np8_k3 150 $M -np 8 $L check --backend cuda --dims k3 --tp 8 --tokens 1,33,257,2048 --dist realistic --json $R/np8_k3.json) > $R/phase_a.txt 2>&1 &
OMP_NUM_THREADS=10 s main_k3 360 $L check --backend cuda --dims k3 --tp 8,16 --tokens 1,5,33,128,256,257,2048 --dist all --json $R/main_k3.json --markdown $R/main_k3.md > $R/phase_b.txt 2>&1 &
wait
cat $R/phase_a.txt $R/phase_b.txt
$L --version
echo "total $(( $(date +%s) - t0 )) s"
tar czf $OUT/r.tgz -C $OUT r
