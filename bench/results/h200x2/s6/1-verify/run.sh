# Sixth session, call 1: the tree of fff36f5, whose last four commits had not
# run on a GPU: the GPU suite (with the five new entries), tier 0 on fake
# ranks, np 2, and the benchmark whose tier 0 rows now check their output.
set -uo pipefail
R=$OUT/r; mkdir -p $R
export NCCL_NVLS_ENABLE=0 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_NUM_THREADS=4
t0=$(date +%s)
(cmake --preset release -DLTT_WITH_FUZZ=OFF -DCMAKE_CUDA_ARCHITECTURES=90 -DCMAKE_PREFIX_PATH=$PWD/.device-deps/usr > $R/build.log 2>&1 && cmake --build --preset release -j32 >> $R/build.log 2>&1) || { grep -E "error" $R/build.log | head; tail -30 $R/build.log; exit 2; }
echo "build $(( $(date +%s) - t0 )) s; warnings: $(grep -c -i warning $R/build.log)"
L=$PWD/build/release/bin/ltt
M="mpirun --allow-run-as-root --oversubscribe --bind-to none -x NCCL_NVLS_ENABLE -x OMP_NUM_THREADS"
s() { local n=$1 to=$2; shift 2; local a=$(date +%s); timeout $to "$@" > $R/$n.log 2>&1; echo "$n: exit $? $(( $(date +%s) - a )) s: $(grep -E '^# ([0-9]+ cases|Out of|Mutants)|ERROR SUMMARY|hazards' $R/$n.log | sort | uniq -c | tr '\n' ' ') ident $(grep -c 'bitwise identical' $R/$n.log) differ $(grep -c 'ranks differ' $R/$n.log)"; grep -E "FAIL|ltt:|rror:" $R/$n.log | head -4; }
(export CUDA_VISIBLE_DEVICES=1
 (cd build/release && timeout 150 ctest -R '^gpu\.|python' -E ranks_nccl -j3 > $R/ctest_gpu.log 2>&1; echo "ctest gpu: $(grep -E 'tests passed' $R/ctest_gpu.log)"; grep -E "Failed|\*\*\*|Not Run" $R/ctest_gpu.log)
 s t0_default 80 $L check --backend cuda --dims k3 --tp 8,16 --tier 0 --tokens 1,5,9,16,17,33,64,65,128 --dist all) > $R/phase_gpu1.txt 2>&1 &
(export CUDA_VISIBLE_DEVICES=0
 s bench 120 $L bench --backend cuda --dims k3 --tp 8 --tokens 1,5,16,33,64,128 --json $R/bench.json) > $R/phase_gpu0.txt 2>&1
wait
cat $R/phase_gpu1.txt $R/phase_gpu0.txt
s np2_t0 60 $M -np 2 $L check --backend cuda --dims k3 --tp 2,8 --tier 0 --tokens 1,5,16 --dist realistic
(cd build/release && timeout 60 ctest -R 'gpu.ranks_nccl' > $R/ctest_nccl.log 2>&1; echo "ctest ranks_nccl: $(grep -E 'tests passed' $R/ctest_nccl.log)")
grep -hE "^ +(tier0-[a-z0-9-]+) " $R/bench.log | awk '{print $1, $2, $3, $4, $7, $8}' | grep -v "fused-c"
tar czf $OUT/r.tgz -C $OUT r
echo "total $(( $(date +%s) - t0 )) s"
