set -uo pipefail
R=$OUT/r; mkdir -p $R
export NCCL_NVLS_ENABLE=0 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_NUM_THREADS=8
t0=$(date +%s)
git log --oneline -1 > $R/commit.txt; git status --short > $R/status.txt
(cmake --preset release -DLTT_WITH_FUZZ=OFF -DCMAKE_CUDA_ARCHITECTURES=90 -DCMAKE_PREFIX_PATH=$PWD/.device-deps/usr > $R/build.log 2>&1 && cmake --build --preset release -j32 >> $R/build.log 2>&1) || { grep -E "error" $R/build.log | head; tail -30 $R/build.log; exit 2; }
echo "build $(( $(date +%s) - t0 )) s; warnings: $(grep -c -i warning $R/build.log)"
L=$PWD/build/release/bin/ltt
M="mpirun --allow-run-as-root --oversubscribe -x NCCL_NVLS_ENABLE -x OMP_NUM_THREADS"
s() { local n=$1 to=$2; shift 2; local a=$(date +%s); timeout $to "$@" > $R/$n.log 2>&1; echo "$n: exit $? $(( $(date +%s) - a )) s: $(grep -E '^# ([0-9]+ cases|Out of|Mutants)|ERROR SUMMARY|hazards' $R/$n.log | sort | uniq -c | tr '\n' ' ') ident $(grep -c 'bitwise identical' $R/$n.log) differ $(grep -c 'ranks differ' $R/$n.log)"; grep -E "FAIL|ltt:|rror:" $R/$n.log | head -4; }
(export CUDA_VISIBLE_DEVICES=1 OMP_NUM_THREADS=4
 (cd build/release && OMP_NUM_THREADS=3 timeout 200 ctest -R '^gpu\.|python' -E ranks_nccl -j4 > $R/ctest_gpu.log 2>&1; echo "ctest gpu+python: $(grep -E 'tests passed' $R/ctest_gpu.log)"; grep -E "Failed|\*\*\*|Skipped|Not Run" $R/ctest_gpu.log)
 for path in fused split; do LTT_TIER0_PATH=$path s t0_$path 90 $L check --backend cuda --dims k3 --tp 8,16 --tier 0 --tokens 1,5,16,33,48,64,128 --dist all; done
 for ct in 1 2; do LTT_TIER0_PATH=fused LTT_TIER0_COLUMNS=$ct s cols$ct 60 $L check --backend cuda --dims k3 --tp 8,16 --tier 0 --tokens 1,5,33 --dist all; done
 for tool in memcheck racecheck synccheck initcheck; do s san_$tool 60 compute-sanitizer --tool $tool --error-exitcode 9 $L check --backend cuda --dims small --tp 8,16 --tier 0 --tokens 5,33 --dist realistic; done) > $R/phase_gpu1.txt &
(export CUDA_VISIBLE_DEVICES=0
 s bench 150 $L bench --backend cuda --dims k3 --tp 8 --tokens 1,5,16,33,48,64,128,2048,8192 --json $R/bench.json
 s compose 90 python3 bench/torch/compose.py --json $R/compose.json
 s np8_t0 90 $M -np 8 $L check --backend cuda --dims k3 --tp 8 --tier 0 --tokens 1,5,33,128 --dist realistic,adversarial)
(export OMP_NUM_THREADS=4; s np2_t0 120 $M -np 2 $L check --backend cuda --dims k3 --tp 2,8,16 --tier 0 --tokens 1,5,33 --dist realistic,adversarial)
wait
cat $R/phase_gpu1.txt
grep -E "^ +(launch-graph|rmsnorm|rmsnorm-pdl|tier0-[a-z0-9-]+|lamport-allgather) " $R/bench.log | grep -E " (1|5|16|33|48|64|128|2048|8192) " | awk '{printf "%s %s %s %s\n", $1, $3, $4, $9}' | pr -3 -t -w 150 | head -60
grep -E "not timed" $R/bench.log | head
grep -E "rmsnorm_compile|tier0_compile|copy" $R/compose.log
tar czf $OUT/r.tgz -C $OUT r
echo "total $(( $(date +%s) - t0 )) s"
