set -uo pipefail
R=$OUT/r; mkdir -p $R
export NCCL_NVLS_ENABLE=0 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_NUM_THREADS=8
t0=$(date +%s)
(cmake --preset release -DLTT_WITH_FUZZ=OFF -DCMAKE_CUDA_ARCHITECTURES=90 -DCMAKE_PREFIX_PATH=$PWD/.device-deps/usr > $R/build.log 2>&1 && cmake --build --preset release -j32 >> $R/build.log 2>&1) || { grep -E "error" $R/build.log | head; tail -30 $R/build.log; exit 2; }
echo "build $(( $(date +%s) - t0 )) s; warnings: $(grep -c -i warning $R/build.log)"
L=$PWD/build/release/bin/ltt
M="mpirun --allow-run-as-root --oversubscribe -x NCCL_NVLS_ENABLE -x OMP_NUM_THREADS"
s() { local n=$1 to=$2; shift 2; local a=$(date +%s); timeout $to "$@" > $R/$n.log 2>&1; echo "$n: exit $? $(( $(date +%s) - a )) s: $(grep -E '^# ([0-9]+ cases|Out of)' $R/$n.log | tr '\n' ' ') ident $(grep -c 'bitwise identical' $R/$n.log) differ $(grep -c 'ranks differ' $R/$n.log)"; grep -E "FAIL|ltt:|rror" $R/$n.log | head -5; }
export CUDA_VISIBLE_DEVICES=0
s t0_fused_small 60 env LTT_TIER0_PATH=fused $L check --backend cuda --dims small --tp 8,16 --tier 0 --tokens 1,5,16,17,33,128 --dist all
s t0_split_small 60 env LTT_TIER0_PATH=split $L check --backend cuda --dims small --tp 8,16 --tier 0 --tokens 1,5,16,17,33,128 --dist all
(export CUDA_VISIBLE_DEVICES=1
 for p in fused split; do s t0_${p}_k3 150 env LTT_TIER0_PATH=$p $L check --backend cuda --dims k3 --tp 8,16 --tier 0 --tokens 1,5,16,33,128 --dist all; done
 s np8_t0 60 $M -np 8 $L check --backend cuda --dims k3 --tp 8 --tier 0 --tokens 1,5,33,128 --dist realistic
 s np2_t0 60 $M -np 2 $L check --backend cuda --dims k3 --tp 2,8 --tier 0 --tokens 1,5,33,128 --dist realistic
 for t in memcheck racecheck synccheck initcheck; do for p in fused split; do s san_${t}_$p 60 env LTT_TIER0_PATH=$p compute-sanitizer --tool $t --error-exitcode 9 $L check --backend cuda --dims small --tp 8 --tier 0 --tokens 5,17 --dist realistic; done; done
) > $R/phase_gpu1.txt &
s bench 200 $L bench --backend cuda --dims k3 --tp 8 --tokens 1,5,16,33,128,2048,8192 --tier 0 --json $R/bench.json
grep -E "launch|rmsnorm|tier0-" $R/bench.log | head -60
(cd build/release && timeout 120 ctest -R '^gpu\.' -j4 > $R/ctest_gpu.log 2>&1; echo "ctest gpu: $(grep -E 'tests passed' $R/ctest_gpu.log)"; grep -E "Failed|\*\*\*" $R/ctest_gpu.log)
(cd build/release && timeout 60 ctest -R 'python.package' --output-on-failure > $R/ctest_py.log 2>&1; tail -15 $R/ctest_py.log)
wait
cat $R/phase_gpu1.txt
tar czf $OUT/r.tgz -C $OUT r
echo "total $(( $(date +%s) - t0 )) s"
