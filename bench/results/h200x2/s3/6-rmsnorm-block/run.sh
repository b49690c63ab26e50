set -uo pipefail
R=$OUT/r; mkdir -p $R
export NCCL_NVLS_ENABLE=0 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_NUM_THREADS=8
t0=$(date +%s)
(cmake --preset release -DLTT_WITH_FUZZ=OFF -DCMAKE_CUDA_ARCHITECTURES=90 -DCMAKE_PREFIX_PATH=$PWD/.device-deps/usr > $R/build.log 2>&1 && cmake --build --preset release -j32 >> $R/build.log 2>&1) || { grep -E "error" $R/build.log | head; tail -30 $R/build.log; exit 2; }
echo "build $(( $(date +%s) - t0 )) s; warnings: $(grep -c -i warning $R/build.log)"
L=$PWD/build/release/bin/ltt
s() { local n=$1 to=$2; shift 2; local a=$(date +%s); timeout $to "$@" > $R/$n.log 2>&1; echo "$n: exit $? $(( $(date +%s) - a )) s: $(grep -E '^# ([0-9]+ cases|Out of)' $R/$n.log | tr '\n' ' ')"; grep -E "FAIL|ltt:|rror" $R/$n.log | head -5; }
(export CUDA_VISIBLE_DEVICES=1; s fake_2048 110 $L check --backend cuda --dims k3 --tp 8,16 --tokens 1024,2048 --dist realistic,adversarial --tier 1,2,3,4 --json $R/fake_2048.json) > $R/phase_gpu1.txt &
export CUDA_VISIBLE_DEVICES=0
s bench 60 $L bench --backend cuda --dims k3 --tp 8 --tokens 1,128,1024,2048,8192 --tier 1 --json $R/bench.json
grep -E "rmsnorm" $R/bench.log
(cd build/release && OMP_NUM_THREADS=4 timeout 110 ctest -R '^gpu\.' -E 'ranks_nccl' -j6 > $R/ctest_gpu.log 2>&1; echo "ctest gpu: $(grep -E 'tests passed' $R/ctest_gpu.log)"; grep -E "Failed|\*\*\*" $R/ctest_gpu.log)
wait
cat $R/phase_gpu1.txt
tar czf $OUT/r.tgz -C $OUT r
echo "total $(( $(date +%s) - t0 )) s"
