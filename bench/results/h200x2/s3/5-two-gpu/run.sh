set -uo pipefail
R=$OUT/r; mkdir -p $R
export NCCL_NVLS_ENABLE=0 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_NUM_THREADS=8
t0=$(date +%s)
nvidia-smi topo -m > $R/topo.txt 2>&1
(cmake --preset release -DLTT_WITH_FUZZ=OFF -DCMAKE_CUDA_ARCHITECTURES=90 -DCMAKE_PREFIX_PATH=$PWD/.device-deps/usr > $R/build.log 2>&1 && cmake --build --preset release -j32 --target ltt >> $R/build.log 2>&1) || { grep -E "error" $R/build.log | head; tail -30 $R/build.log; exit 2; }
echo "build $(( $(date +%s) - t0 )) s"
L=$PWD/build/release/bin/ltt
M="mpirun --allow-run-as-root --oversubscribe -x NCCL_NVLS_ENABLE -x OMP_NUM_THREADS"
s() { local n=$1 to=$2; shift 2; local a=$(date +%s); timeout $to "$@" > $R/$n.log 2>&1; echo "$n: exit $? $(( $(date +%s) - a )) s: $(grep -E '^# ([0-9]+ cases|Out of)' $R/$n.log | tr '\n' ' ') ident $(grep -c 'bitwise identical' $R/$n.log) differ $(grep -c 'ranks differ' $R/$n.log)"; grep -E "FAIL|ltt:|rror" $R/$n.log | head -5; }
s np2_big 150 $M -np 2 $L check --backend cuda --dims k3 --dist exact,adversarial --tp 8,16 --tokens 256,2048 --json $R/np2_big.json
s np2_nccl 60 $M -np 2 $L check --backend cuda --transport nccl --dims k3 --dist all --tp 2 --tier 1,2,3,4 --tokens 2048 --json $R/np2_nccl.json
s np2_racecheck 60 $M -np 2 compute-sanitizer --tool racecheck --error-exitcode 9 $L check --backend cuda --dims small --tp 2,8 --tier 0 --tokens 5 --dist realistic
export CUDA_VISIBLE_DEVICES=0 CUDA_MPS_PIPE_DIRECTORY=/tmp/ltt-mps CUDA_MPS_LOG_DIRECTORY=/tmp/ltt-mps-log
mkdir -p $CUDA_MPS_PIPE_DIRECTORY $CUDA_MPS_LOG_DIRECTORY
if nvidia-cuda-mps-control -d; then
  s np8_mps 50 $M -x CUDA_MPS_PIPE_DIRECTORY -x CUDA_VISIBLE_DEVICES -np 8 $L check --backend cuda --dims k3 --tp 8 --tokens 1,128,2048 --dist realistic
  echo quit | nvidia-cuda-mps-control
fi
tar czf $OUT/r.tgz -C $OUT r
echo "total $(( $(date +%s) - t0 )) s"
