# Twenty-eighth session, call 2 (one H200): the tree after the two new-user
# reviews' mends (reports, mutants, golden, regress, the watchdog; no kernel
# changed): the build; the whole suite by the README's GPU-machine command;
# the new paths on the cuda backend (mutants with 'no effect', a stopped case's
# HTML section, a short --timeout at k3 that the checks outlast); then, alone
# on the GPU, ltt bench's tier 0 and RMSNorm rows and PyTorch's composition
# (bench/torch/compose.py), the speed figures on this tree.
set -uo pipefail
R=$OUT/r; mkdir -p $R
export NCCL_NVLS_ENABLE=0 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_NUM_THREADS=4
t0=$(date +%s)
(cmake --preset release -DLTT_WITH_FUZZ=OFF -DCMAKE_CUDA_ARCHITECTURES=90 -DCMAKE_PREFIX_PATH=$PWD/.device-deps/usr > $R/build.log 2>&1 && cmake --build --preset release -j16 >> $R/build.log 2>&1) || { grep -E "error" $R/build.log | head; tail -30 $R/build.log; tar czf $OUT/r.tgz -C $OUT r; exit 2; }
echo "build $(( $(date +%s) - t0 )) s; warnings: $(grep -c -i warning $R/build.log)"
L=$PWD/build/release/bin/ltt
s() { local n=$1 to=$2; shift 2; local a=$(date +%s); timeout $to "$@" > $R/$n.log 2> $R/$n.err; echo "$n: exit $? $(( $(date +%s) - a )) s: $(grep -E '^# ([0-9]+ cases|Out of|Mutants|no effect)' $R/$n.log | tr '\n' ' ')"; grep -E "ltt:" $R/$n.err | head -3; }
a=$(date +%s); OMP_NUM_THREADS=2 timeout 240 scripts/ctest-gpu-host.sh -j8 > $R/ctest_all.log 2>&1; echo "ctest-gpu-host, whole suite: exit $? $(( $(date +%s) - a )) s"
grep -E "tests passed|tests failed|ctest-gpu-host|\(Failed\)|Timeout" $R/ctest_all.log
s mutants 90 $L mutants --backend cuda --dims small --tp 8,16 --tokens 5,33 --json $R/mutants.json
s mutants_exact 60 $L mutants --backend cuda --dims small --tp 8 --tokens 5 --dist exact --only eps-missing,drop-rank,lamport-stale --json $R/mutants_exact.json
grep -E "no effect|shows only" $R/mutants_exact.log
s stopped 60 $L check --backend cuda --dims small --tp 8 --tokens 5 --tier 0 --dist adversarial --mutant lamport-neg-zero --html $R/stopped.html --json $R/stopped.json
echo "stopped.html: case section $(grep -c "id='case-0'" $R/stopped.html), 'stopped, no output' $(grep -c 'stopped, no output' $R/stopped.html)"
s short_timeout 200 $L check --backend cuda --dims k3 --tp 8 --tokens 2048 --tier 1,2 --dist realistic --timeout 0.5
# the benchmarks alone on the GPU, after everything else
s bench 70 $L bench --backend cuda --dims k3 --tp 8 --tier 0 --tokens 1,5,33,128 --json $R/bench.json
grep -E "^ +(tier0-rank|chain-read-tier0|tier0-cublas) " $R/bench.log
s bench_norm 40 $L bench --backend cuda --dims k3 --tp 8 --tier 1 --tokens 2048,8192 --json $R/bench_norm.json
grep -E "^ +(rmsnorm|rmsnorm-pdl|copy-norm) " $R/bench_norm.log
timeout 120 python3 bench/torch/compose.py --json $R/compose.json > $R/compose.log 2>&1; echo "compose exit $?"
grep -v '^\[W' $R/compose.log | head -30
$L --version
echo "total $(( $(date +%s) - t0 )) s"
tar czf $OUT/r.tgz -C $OUT r
