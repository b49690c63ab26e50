# Twenty-seventh session, call 3 (nvidia-h200-x2: two H200s of one host):
# the final tree, the whole suite by the README's GPU-machine command (the
# two-GPU tests gpu.ranks_nccl and gpu.ranks_sym run here: NCCL between two
# processes, one GPU each), process-per-rank checks at k3 over both GPUs
# (NCCL's all-reduce; tier 0 over CUDA IPC and over NCCL symmetric windows),
# and ltt bench under mpirun -np 2 (real ranks, T 2), which ltt simulate
# --check then predicts.
set -uo pipefail
R=$OUT/r; mkdir -p $R
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
t0=$(date +%s)
nvidia-smi --query-gpu=name,driver_version --format=csv > $R/gpu.txt 2>&1; nvidia-smi topo -m >> $R/gpu.txt 2>&1
(cmake --preset release -DLTT_WITH_FUZZ=OFF -DCMAKE_CUDA_ARCHITECTURES=90 -DCMAKE_PREFIX_PATH=$PWD/.device-deps/usr > $R/build.log 2>&1 && cmake --build --preset release -j32 >> $R/build.log 2>&1) || { grep -E "error" $R/build.log | head; tail -30 $R/build.log; tar czf $OUT/r.tgz -C $OUT r; exit 2; }
echo "build $(( $(date +%s) - t0 )) s; warnings: $(grep -c -i warning $R/build.log); $(nvidia-smi -L | wc -l) GPUs"
a=$(date +%s); OMP_NUM_THREADS=2 timeout 300 scripts/ctest-gpu-host.sh -j8 > $R/ctest_all.log 2>&1; echo "ctest-gpu-host, whole suite: exit $? $(( $(date +%s) - a )) s"
grep -E "tests passed|tests failed|ctest-gpu-host|\(Failed\)|\(Skipped\)|Timeout" $R/ctest_all.log
grep -E "gpu.ranks_(nccl|sym)" $R/ctest_all.log | head -4
L=$PWD/build/release/bin/ltt
M="mpirun --allow-run-as-root --oversubscribe -x NCCL_NVLS_ENABLE -x OMP_NUM_THREADS"
export OMP_NUM_THREADS=8
s() { local n=$1 to=$2; shift 2; local a=$(date +%s); timeout $to "$@" > $R/$n.log 2>&1; echo "$n: exit $? $(( $(date +%s) - a )) s: $(grep -E '^# ([0-9]+ cases?,|Out of)' $R/$n.log | tr '\n' ' ') identical $(grep -c 'every rank bitwise identical' $R/$n.log)"; }
s np2_nccl_k3 150 $M -np 2 $L check --backend cuda --transport nccl --dims k3 --tp 2 --tokens 1,33,257,2048 --dist realistic,adversarial --json $R/np2_nccl_k3.json
s np2_sym_k3 150 $M -np 2 $L check --backend cuda --peer-memory nccl --dims k3 --tp 2,8 --tokens 1,33,128 --dist realistic
s bench_np2 150 $M -np 2 $L bench --backend cuda --dims k3 --tp 2 --tokens 1,5,16,33,64,128,256,2048 --json $R/bench_np2.json
$L simulate --check $R/bench_np2.json > $R/simulate_check_np2.log 2>&1; echo "simulate --check of it: exit $? $(tail -1 $R/simulate_check_np2.log)"
grep -E "^#   real" $R/simulate_check_np2.log
echo "total $(( $(date +%s) - t0 )) s"
tar czf $OUT/r.tgz -C $OUT r
