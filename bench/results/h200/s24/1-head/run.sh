# Twenty-fourth session, call 1 (one H200): every check on this session's
# first tree (e38f49c: the code of 12dd1f9, the ring's sharper sets, not yet
# built there, and the report's wording): the whole suite (GPU tests,
# process-per-rank entries, the rest on 16 cores); the four compute-sanitizer
# tools on a small case of every tier and on the mutant gemm-round-then-add's
# path; the cuda backend's mutants under one-shot; the main job on fake
# ranks (k3, T 8 and 16, every tier, M 1 .. 2048, all distributions);
# mpirun -np 8 bit for bit against fake ranks; then, alone on the GPU, ltt
# bench's tier 0 and RMSNorm rows and PyTorch's composition.
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
   timeout 260 ctest -E '^gpu\.|python|lt_inplace' -j6 > $R/ctest_rest.log 2>&1; echo "ctest rest: $(grep -E 'tests passed' $R/ctest_rest.log)"; grep -E "Failed|\*\*\*|Not Run|Timeout" $R/ctest_rest.log)
 for tool in memcheck racecheck synccheck initcheck; do
   s san_$tool 60 compute-sanitizer --tool $tool --error-exitcode 9 $L check --backend cuda --dims small --tp 8 --tokens 5,33 --dist realistic
   s san_rta_$tool 60 compute-sanitizer --tool $tool --error-exitcode 9 $L check --backend cuda --dims small --tp 8 --tier 0,2,3,4 --tokens 5,33 --dist realistic --mutant gemm-round-then-add
 done
 s np8_k3 200 $M -np 8 $L check --backend cuda --dims k3 --tp 8 --tokens 1,33,257,2048 --dist realistic --json $R/np8_k3.json
 s mutants_oneshot 90 $L mutants --backend cuda --dims small --tp 8,16 --tokens 5,33) > $R/phase_a.txt 2>&1 &
OMP_NUM_THREADS=10 s main_k3 330 $L check --backend cuda --dims k3 --tp 8,16 --tokens 1,5,33,128,256,257,2048 --dist all --json $R/main_k3.json --markdown $R/main_k3.md > $R/phase_b.txt 2>&1 &
wait
# the benchmarks alone on the GPU, after everything else
s bench 70 $L bench --backend cuda --dims k3 --tp 8 --tier 0 --tokens 1,5,33,128 --json $R/bench.json
grep -E "^ +(tier0-rank|chain-read-tier0|tier0-cublas) " $R/bench.log
s bench_norm 40 $L bench --backend cuda --dims k3 --tp 8 --tier 1 --tokens 2048,8192 --json $R/bench_norm.json
grep -E "^ +(rmsnorm|rmsnorm-pdl|copy-norm) " $R/bench_norm.log
timeout 100 python3 bench/torch/compose.py --json $R/compose.json > $R/compose.log 2>&1; echo "compose exit $?"
grep -v '^\[W' $R/compose.log | head -30
cat $R/phase_a.txt $R/phase_b.txt
echo "total $(( $(date +%s) - t0 )) s"
tar czf $OUT/r.tgz -C $OUT r
