set -uo pipefail
R=$OUT/r; mkdir -p $R
export NCCL_NVLS_ENABLE=0 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_NUM_THREADS=8
t0=$(date +%s)
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv > $R/gpu.txt 2>&1
(cmake --preset release -DLTT_WITH_FUZZ=OFF -DCMAKE_CUDA_ARCHITECTURES=90 -DCMAKE_PREFIX_PATH=$PWD/.device-deps/usr > $R/build.log 2>&1 && cmake --build --preset release -j32 >> $R/build.log 2>&1) || { grep -E "error" $R/build.log | head; tail -30 $R/build.log; exit 2; }
echo "build $(( $(date +%s) - t0 )) s; warnings: $(grep -c -i warning $R/build.log)"
L=$PWD/build/release/bin/ltt
M="mpirun --allow-run-as-root --oversubscribe -x NCCL_NVLS_ENABLE -x OMP_NUM_THREADS"
s() { local n=$1 to=$2; shift 2; local a=$(date +%s); timeout $to "$@" > $R/$n.log 2>&1; echo "$n: exit $? $(( $(date +%s) - a )) s: $(grep -E '^# ([0-9]+ cases|Out of|Mutants)' $R/$n.log | tr '\n' ' ') ident $(grep -c 'bitwise identical' $R/$n.log) differ $(grep -c 'ranks differ' $R/$n.log)"; grep -E "FAIL|ltt:|rror" $R/$n.log | head -5; }
(cd build/release && OMP_NUM_THREADS=4 timeout 150 ctest -R '^gpu\.|python' -j6 > $R/ctest_gpu.log 2>&1; echo "ctest gpu+python: $(grep -E 'tests passed' $R/ctest_gpu.log)"; grep -E "Failed|\*\*\*" $R/ctest_gpu.log)
(cd build/release && OMP_NUM_THREADS=2 timeout 300 ctest -E '^gpu\.|python' -j8 > $R/ctest_rest.log 2>&1; echo "ctest rest: $(grep -E 'tests passed' $R/ctest_rest.log)"; grep -E "Failed|\*\*\*" $R/ctest_rest.log) > $R/phase_cpu.txt &
(export CUDA_VISIBLE_DEVICES=0
 s fake_k3 300 $L check --backend cuda --dims k3 --tp 8,16 --tokens 1,5,33,128,256,257,2048 --dist all --json $R/fake_k3.json --markdown $R/fake_k3.md
 s bench 130 $L bench --backend cuda --dims k3 --tp 8 --tokens 1,5,16,33,64,128,2048,8192 --json $R/bench.json
 s compose 90 python3 bench/torch/compose.py --json $R/compose.json) > $R/phase_gpu0.txt &
(export CUDA_VISIBLE_DEVICES=1
 s np8_k3 150 $M -np 8 $L check --backend cuda --dims k3 --tp 8 --tokens 1,5,33,128,256,257,2048 --dist realistic,adversarial --json $R/np8_k3.json
 s fake_8192 200 $L check --backend cuda --dims k3 --tp 8 --tokens 8192 --dist adversarial,exact --json $R/fake_8192.json
 if command -v nvidia-cuda-mps-control > /dev/null; then
   export CUDA_MPS_PIPE_DIRECTORY=/tmp/ltt-mps CUDA_MPS_LOG_DIRECTORY=/tmp/ltt-mps-log; mkdir -p $CUDA_MPS_PIPE_DIRECTORY $CUDA_MPS_LOG_DIRECTORY
   if nvidia-cuda-mps-control -d; then
     s np8_mps 90 $M -x CUDA_MPS_PIPE_DIRECTORY -np 8 $L check --backend cuda --dims k3 --tp 8 --tokens 1,128,2048 --dist realistic
     echo quit | nvidia-cuda-mps-control
   fi
 fi) > $R/phase_gpu1.txt &
wait
cat $R/phase_gpu0.txt $R/phase_gpu1.txt $R/phase_cpu.txt
grep -E "launch|rmsnorm( |-)|tier0-(rank|fused|split|cublas)|gemm-full" $R/bench.log | grep -E " (1|5|33|64|128|2048|8192) " | head -80
grep -E "rmsnorm_compile|tier0_compile|addmm|copy" $R/compose.log
tar czf $OUT/r.tgz -C $OUT r
echo "total $(( $(date +%s) - t0 )) s"
