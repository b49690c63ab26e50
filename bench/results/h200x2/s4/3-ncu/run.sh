set -uo pipefail
R=$OUT/r; mkdir -p $R
export NCCL_NVLS_ENABLE=0 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_NUM_THREADS=8
t0=$(date +%s)
git log --oneline -1 > $R/commit.txt; git status --short > $R/status.txt
(cmake --preset release -DLTT_WITH_FUZZ=OFF -DCMAKE_CUDA_ARCHITECTURES=90 -DCMAKE_CUDA_FLAGS=-lineinfo -DCMAKE_PREFIX_PATH=$PWD/.device-deps/usr > $R/build.log 2>&1 && cmake --build --preset release -j32 --target ltt >> $R/build.log 2>&1) || { grep -E "error" $R/build.log | head; tail -30 $R/build.log; exit 2; }
echo "build $(( $(date +%s) - t0 )) s; warnings: $(grep -c -i warning $R/build.log)"
L=$PWD/build/release/bin/ltt
M="mpirun --allow-run-as-root --oversubscribe -x NCCL_NVLS_ENABLE -x OMP_NUM_THREADS"
s() { local n=$1 to=$2; shift 2; local a=$(date +%s); timeout $to "$@" > $R/$n.log 2>&1; echo "$n: exit $? $(( $(date +%s) - a )) s: $(grep -E '^# ([0-9]+ cases|Out of|Mutants)' $R/$n.log | tr '\n' ' ') ident $(grep -c 'bitwise identical' $R/$n.log) differ $(grep -c 'ranks differ' $R/$n.log)"; grep -E "FAIL|ltt:|rror:" $R/$n.log | head -4; }
(export OMP_NUM_THREADS=4; s np2_t0_128 150 $M -np 2 $L check --backend cuda --dims k3 --tp 2,8,16 --tier 0 --tokens 128 --dist all) > $R/phase_np2.txt &
export CUDA_VISIBLE_DEVICES=1
NCU="timeout 120 ncu --section SpeedOfLight --section WarpStateStats --section SourceCounters --print-details all --import-source yes"
$NCU -k regex:shard_gemm -c 1 $L bench --backend cuda --dims k3 --tp 8 --tokens 1 --tier 0 --reps 2 > $R/ncu_t0_m1.log 2>&1; echo "ncu exit $?"
timeout 60 ncu --metrics regex:smsp__average_warps_issue_stalled_.*_per_issue_active.ratio -k regex:shard_gemm -c 1 $L bench --backend cuda --dims k3 --tp 8 --tokens 1 --tier 0 --reps 2 > $R/ncu_stalls.log 2>&1; echo "ncu2 exit $?"
grep -E "Duration|Warp Cycles Per Issued|stalled" $R/ncu_t0_m1.log $R/ncu_stalls.log | grep -v "0$" | cut -c1-150 | sort -t' ' -k3 | tail -30
grep -A40 -E "Warp Stall Sampling|most stall" $R/ncu_t0_m1.log | cut -c1-200 | head -70
export CUDA_VISIBLE_DEVICES=0
s bench 150 $L bench --backend cuda --dims k3 --tp 8 --tokens 1,5,16,33,64,128,2048,8192 --json $R/bench.json
wait
cat $R/phase_np2.txt
grep -E "^ +(rmsnorm|rmsnorm-pdl|rmsnorm-block512|allreduce-[a-z0-9]+|lamport-allgather|gemm-full) " $R/bench.log | grep -E " (2048|8192) "
tar czf $OUT/r.tgz -C $OUT r
echo "total $(( $(date +%s) - t0 )) s"
