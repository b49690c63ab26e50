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
# phase 1: benchmarks on a quiet GPU 0; GPU tests on GPU 1
(export CUDA_VISIBLE_DEVICES=1; cd build/release && OMP_NUM_THREADS=3 timeout 200 ctest -R '^gpu\.|python' -E ranks_nccl -j4 > $R/ctest_gpu.log 2>&1; echo "ctest gpu+python: $(grep -E 'tests passed' $R/ctest_gpu.log)"; grep -E "Failed|\*\*\*|Skipped|Not Run" $R/ctest_gpu.log) > $R/phase_ctest.txt &
(export CUDA_VISIBLE_DEVICES=0
 s bench 150 $L bench --backend cuda --dims k3 --tp 8 --tokens 1,5,16,33,64,128,2048,8192 --json $R/bench.json
 s compose 90 python3 bench/torch/compose.py --json $R/compose.json)
wait; echo "phase 1 done $(( $(date +%s) - t0 )) s"
# phase 2: correctness everywhere
(export CUDA_VISIBLE_DEVICES=0
 s fake_k3 300 $L check --backend cuda --dims k3 --tp 8,16 --tokens 1,5,33,128,256,257,2048 --dist all --json $R/fake_k3.json --markdown $R/fake_k3.md) > $R/phase_fake.txt &
(export CUDA_VISIBLE_DEVICES=1 OMP_NUM_THREADS=4
 for ct in 1 2 4; do LTT_TIER0_PATH=fused LTT_TIER0_COLUMNS=$ct s cols$ct 60 $L check --backend cuda --dims k3 --tp 8,16 --tier 0 --tokens 1,5,16,33,48 --dist all; done
 for tool in memcheck racecheck synccheck initcheck; do s san_$tool 60 compute-sanitizer --tool $tool --error-exitcode 9 $L check --backend cuda --dims small --tp 8 --tokens 5 --dist realistic; done
 s np8 100 $M -np 8 $L check --backend cuda --dims k3 --tp 8 --tokens 1,33,257,2048 --dist realistic,adversarial --json $R/np8.json) > $R/phase_gpu1.txt &
(export OMP_NUM_THREADS=4
 s np2_t0 90 $M -np 2 $L check --backend cuda --dims k3 --tp 2,8,16 --tier 0 --tokens 1,5,33,128 --dist all
 s np2_t4_257 60 $M -np 2 $L check --backend cuda --dims k3 --tp 16 --tier 4 --tokens 257 --dist adversarial
 s np2_nccl_exact 200 $M -np 2 $L check --backend cuda --transport nccl --dims k3 --tp 2 --tier 1,2,3,4 --tokens 2048 --dist exact --json $R/np2_nccl_exact.json
 s ranks_nccl 60 bash -c "cd build/release && ctest -R ranks_nccl") > $R/phase_np2.txt &
wait
cat $R/phase_ctest.txt $R/phase_fake.txt $R/phase_gpu1.txt $R/phase_np2.txt
grep -E "^ +(launch-graph|rmsnorm|rmsnorm-pdl|rmsnorm-block|rmsnorm-block512|tier0-[a-z0-9-]+|allreduce-[a-z0-9]+|lamport-allgather) " $R/bench.log | grep -E " (1|5|16|33|64|128|2048|8192) " | awk '{printf "%s %s %s %s\n", $1, $3, $4, $9}' | pr -3 -t -w 150 | head -60
grep -E "not timed" $R/bench.log | head
grep -E "rmsnorm_compile|tier0_compile|copy" $R/compose.log
tar czf $OUT/r.tgz -C $OUT r
echo "total $(( $(date +%s) - t0 )) s"
