# Twenty-eighth session, call 3 (one H200; nvidia-h200-x2 was asked for and
# not lent): the session's final code (the review's mends): the build; the
# whole suite by the README's GPU-machine command; and, over two processes on
# the one GPU (CUDA IPC), a short --timeout that the checks and process 0's
# input generation outlast (the other process now waits for them untimed).
set -uo pipefail
R=$OUT/r; mkdir -p $R
export NCCL_NVLS_ENABLE=0 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_NUM_THREADS=8
t0=$(date +%s)
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv > $R/gpu.txt 2>&1; nvidia-smi topo -m >> $R/gpu.txt 2>&1
(cmake --preset release -DLTT_WITH_FUZZ=OFF -DCMAKE_CUDA_ARCHITECTURES=90 -DCMAKE_PREFIX_PATH=$PWD/.device-deps/usr > $R/build.log 2>&1 && cmake --build --preset release -j16 >> $R/build.log 2>&1) || { grep -E "error" $R/build.log | head; tail -30 $R/build.log; tar czf $OUT/r.tgz -C $OUT r; exit 2; }
echo "build $(( $(date +%s) - t0 )) s; warnings: $(grep -c -i warning $R/build.log)"
L=$PWD/build/release/bin/ltt
M="mpirun --allow-run-as-root --oversubscribe --bind-to none -x NCCL_NVLS_ENABLE -x OMP_NUM_THREADS"
s() { local n=$1 to=$2; shift 2; local a=$(date +%s); timeout $to "$@" > $R/$n.log 2> $R/$n.err; echo "$n: exit $? $(( $(date +%s) - a )) s: $(grep -E '^# ([0-9]+ cases|Out of)' $R/$n.log | tr '\n' ' ') bitwise the fake-rank run: $(grep -c 'every rank bitwise identical' $R/$n.log), differing: $(grep -c 'ranks differ' $R/$n.log)"; grep -E "ltt:|FAIL" $R/$n.err $R/$n.log | grep -v "ltt check: tier 0 skipped" | head -4; }
a=$(date +%s); OMP_NUM_THREADS=2 timeout 240 scripts/ctest-gpu-host.sh -j8 > $R/ctest_all.log 2>&1; echo "ctest-gpu-host, whole suite: exit $? $(( $(date +%s) - a )) s"
grep -E "tests passed|tests failed|ctest-gpu-host|\(Failed\)|Timeout|Skipped" $R/ctest_all.log
s np2_short_timeout 200 $M -np 2 $L check --backend cuda --dims k3 --tp 2,8 --tokens 2048 --tier 1,2 --dist realistic --timeout 1 --json $R/np2_short_timeout.json
$L --version
echo "total $(( $(date +%s) - t0 )) s"
tar czf $OUT/r.tgz -C $OUT r
