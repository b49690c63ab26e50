# Thirty-fourth session, call 2 (one GPU; call 1 ran the build, the suite, the
# main job M 1 .. 2048, the cuda mutants and bench): what call 1 left out on
# this tree, whose exact inputs' sets sessions 32 and 33 narrowed: the main
# job's M 8192 (exact first, then the rest, to a deadline); the four
# compute-sanitizer tools on a small case of every tier; mpirun -np 8 (one
# process per rank on one GPU) bit for bit against fake ranks at k3; NCCL
# asked of two processes on one GPU at --tp 2 (call 1 asked it with --tp 2,8,
# which the argument check refused first, so the refusal session 31 moved
# before the first case was not reached).
set -uo pipefail
R=$OUT/r; mkdir -p $R
export NCCL_NVLS_ENABLE=0 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_NUM_THREADS=4
t0=$(date +%s); end=$(( t0 + ${LTT_DEADLINE_S:-540} ))
left() { echo $(( end - $(date +%s) )); }
nvidia-smi -L > $R/gpu.txt 2>&1; cat $R/gpu.txt
(cmake --preset release -DLTT_WITH_FUZZ=OFF -DCMAKE_CUDA_ARCHITECTURES=90 -DCMAKE_PREFIX_PATH=$PWD/.device-deps/usr > $R/build.log 2>&1 && cmake --build --preset release -j16 --target ltt >> $R/build.log 2>&1) || { grep -E "error" $R/build.log | head; tail -30 $R/build.log; tar czf $OUT/r.tgz -C $OUT r; exit 2; }
echo "build $(( $(date +%s) - t0 )) s; warnings: $(grep -c -i warning $R/build.log)"
L=$PWD/build/release/bin/ltt
M="mpirun --allow-run-as-root --oversubscribe --bind-to none -x NCCL_NVLS_ENABLE -x OMP_NUM_THREADS"
W=$(mktemp -d)
s() {  # s NAME TIMEOUT CMD...: run (cut at the deadline), log exit code, seconds and the summary lines
  local n=$1 to=$2; shift 2
  local l=$(left); [ $l -lt $to ] && to=$l
  if [ $to -lt 5 ]; then echo "$n: not run, the deadline"; return; fi
  local a=$(date +%s)
  (cd $W && timeout -k 5 $to "$@") > $R/$n.out 2>&1
  echo "$n: exit $? $(( $(date +%s) - a )) s (limit $to): $(grep -E '^# ([0-9]+ cases|Out of|Mutants)|ERROR SUMMARY|RACECHECK SUMMARY' $R/$n.out | sort | uniq -c | tr '\n' ' ') ident $(grep -c 'bitwise identical' $R/$n.out) differ $(grep -c 'ranks differ' $R/$n.out)"
  grep -E "FAIL|ltt:|rror:|wrong" $R/$n.out | grep -v "elapsed" | head -4
}
s np2_nccl_tp2 60 $M -np 2 $L check --backend cuda --dims small --tp 2 --tokens 1,5 --transport nccl
for tool in memcheck racecheck synccheck initcheck; do
  s san_$tool 60 compute-sanitizer --tool $tool --error-exitcode 9 $L check --backend cuda --dims small --tp 8 --tokens 5,33 --dist realistic
done
s np8_k3 120 $M -np 8 $L check --backend cuda --dims k3 --tp 8 --tokens 1,33,257,2048 --dist realistic --json np8_k3.json
s m8192_exact 200 $L check --backend cuda --dims k3 --tp 8,16 --tokens 8192 --dist exact --json m8192_exact.json
s m8192_real 300 $L check --backend cuda --dims k3 --tp 8,16 --tokens 8192 --dist realistic --json m8192_real.json
(cd $W && cp *.json $R/ 2>/dev/null)
$L --version
echo "total $(( $(date +%s) - t0 )) s"
tar czf $OUT/r.tgz -C $OUT r
