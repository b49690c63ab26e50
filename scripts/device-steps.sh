# Sourced by a device call's run.sh (bench/results/h200/sNN/*/run.sh): the
# set-up and step helpers every such call repeats.
#   R        a folder for the logs, tarred into $OUT/r.tgz on exit (the device
#            tool returns few files, so one archive) with the JSON reports the
#            steps wrote in $W, after `ltt --version` and the call's seconds;
#   left     seconds to the call's deadline (LTT_DEADLINE_S, default 570, from
#            the time this file is sourced);
#   build [TARGET]   configure and build the release preset for sm_90 (only
#            TARGET if given), log to $R/build.log, print seconds and
#            warnings; exits 2 on a failed build;
#   s NAME TIMEOUT CMD...   run CMD in $W, cut at TIMEOUT or the deadline,
#            log to $R/NAME.out, print its exit code, seconds and summary lines;
#   rows FILE.json   a check report's cases, failures and rows judged whole
#            (or that there is no report, or no verdict in it: a run cut
#            short, with the cases it judged before);
#   speed    on an H200 only (the card the issue's speed targets name), the
#            speed figures: tier 0 per-rank at T 8, M 1..128; RMSNorm at
#            M 2048 and 8192; PyTorch's composition (bench/torch/compose.py);
#            on another card it says so and takes nothing;
#   closing  the checks a closing tree gets: the suite by the README's
#            GPU-machine command; the cuda mutants; process per rank
#            (mpirun -np 8, one GPU) against the fake ranks, bitwise; the
#            main job's adversarial cases at M 1..2048 under the row check;
#   sanitize TOOL...   compute-sanitizer with each TOOL (memcheck, racecheck,
#            synccheck, initcheck) on a small adversarial case of every tier.
# ROOT, L (the ltt binary), W (a scratch folder) and M (mpirun as root) are set.
set -uo pipefail
R=$(mktemp -d)/r; mkdir -p "$R"
export NCCL_NVLS_ENABLE=0 OMP_NUM_THREADS=${OMP_NUM_THREADS:-8}
t0=$(date +%s); end=$(( t0 + ${LTT_DEADLINE_S:-570} ))
ROOT=$PWD; L=$ROOT/build/release/bin/ltt; W=$(mktemp -d)
# On exit, however the call ends (the last step, a failed build, the tool's
# kill): the reports the steps wrote in $W join the logs, the binary's
# version (the commit is the record's commit.txt), the call's seconds, then
# the archive. The call's exit code is kept.
finish() {
  local rc=$?
  (cd "$W" && cp ./*.json "$R/" 2>/dev/null)
  [ -x "$L" ] && "$L" --version
  echo "total $(( $(date +%s) - t0 )) s"
  tar czf "$OUT/r.tgz" -C "$(dirname "$R")" r
  exit "$rc"
}
trap finish EXIT
M="mpirun --allow-run-as-root --oversubscribe --bind-to none -x NCCL_NVLS_ENABLE -x OMP_NUM_THREADS"
nvidia-smi -L | tee "$R/gpu.txt"
left() { echo $(( end - $(date +%s) )); }
build() {
  local t=(); [ $# -gt 0 ] && t=(--target "$1")
  { cmake --preset release -DLTT_WITH_FUZZ=OFF -DCMAKE_CUDA_ARCHITECTURES=90 -DCMAKE_PREFIX_PATH="$ROOT/.device-deps/usr" > "$R/build.log" 2>&1 &&
    cmake --build --preset release -j16 "${t[@]}" >> "$R/build.log" 2>&1; } ||
    { grep -E "error" "$R/build.log" | head; tail -30 "$R/build.log"; exit 2; }
  echo "build $(( $(date +%s) - t0 )) s; warnings: $(grep -c -i warning "$R/build.log")"
}
s() {
  local n=$1 to=$2; shift 2
  local l; l=$(left); [ "$l" -lt "$to" ] && to=$l
  if [ "$to" -lt 5 ]; then echo "$n: not run, the deadline"; return; fi
  local a; a=$(date +%s)
  (cd "$W" && timeout -k 5 "$to" "$@") > "$R/$n.out" 2>&1
  echo "$n: exit $? $(( $(date +%s) - a )) s (limit $to): $(grep -E '^# ([0-9]+ cases|Out of|Mutants)|^# correct outputs|^!!!' "$R/$n.out" | tr '\n' ' ')" \
       "ident $(grep -c 'bitwise identical' "$R/$n.out") differ $(grep -c 'ranks differ' "$R/$n.out")"
  grep -E "FAIL|^ltt[a-z ]*:|rror:|admissible-row|<<|wrong" "$R/$n.out" | grep -v elapsed | head -6
}
rows() {
  python3 - "$W/$1" <<'PY'
import json, os, sys
if not os.path.exists(sys.argv[1]):  # the step was not run (the deadline) or wrote nothing
    sys.exit(os.path.basename(sys.argv[1]) + ": no report (the step did not run)")
d = json.load(open(sys.argv[1]))
cs = d.get("cases", [])
if d.get("finished") is not True:  # a placeholder, or the cases judged before the run was cut: no verdict
    sys.exit(os.path.basename(sys.argv[1]) + ": no verdict (the run did not finish its report; " + str(len(cs)) + " of " +
             str(d.get("cases_planned")) + " cases judged before it ended, " + str(sum(not c["pass"] for c in cs)) + " failed)")
print(os.path.basename(sys.argv[1]) + ":", len(cs), "cases,", sum(not c["pass"] for c in cs), "failed;",
      sum(c["admissible"].get("rows_checked", 0) for c in cs), "rows checked,",
      sum(c["admissible"].get("rows_outside", 0) for c in cs), "outside")
PY
}
speed() {
  if ! grep -q H200 "$R/gpu.txt"; then
    echo "speed: not an H200, the speed figures are not taken (the H100's: session 35)"; return
  fi
  s bench 70 "$L" bench --backend cuda --dims k3 --tp 8 --tier 0 --tokens 1,5,33,128 --json "$R/bench.json"
  grep -E "^ +(tier0-rank|chain-read-tier0|tier0-cublas|copy) " "$R/bench.out"
  s bench_norm 40 "$L" bench --backend cuda --dims k3 --tp 8 --tier 1 --tokens 2048,8192 --json "$R/bench_norm.json"
  grep -E "^ +(rmsnorm|rmsnorm-pdl|copy-norm) " "$R/bench_norm.out"
  s compose 120 python3 "$ROOT/bench/torch/compose.py" --json "$R/compose.json"
  grep -v '^\[W' "$R/compose.out" | head -30
}
closing() {
  s suite 150 "$ROOT/scripts/ctest-gpu-host.sh" -j8
  tail -4 "$R/suite.out"
  s mutants_cuda 90 "$L" mutants --backend cuda --dims small --tp 8,16 --tokens 5,33 --dist adversarial --json mu.json
  s np8_k3 100 $M -np 8 "$L" check --backend cuda --dims k3 --tp 8 --tokens 1,33,257,2048 --dist adversarial --json np8_k3.json
  rows np8_k3.json
  s main_adv 240 "$L" check --backend cuda --dims k3 --tp 8,16 --tokens 1,5,33,128,256,257,2048 --dist adversarial --json main_adv.json
  rows main_adv.json
}
sanitize() {
  local tool
  for tool in "$@"; do
    s "san_$tool" 60 compute-sanitizer --tool "$tool" --error-exitcode 9 "$L" check --backend cuda --dims small --tp 8 --tokens 5,33 --dist adversarial
    grep -E "ERROR SUMMARY|RACECHECK SUMMARY" "$R/san_$tool.out"
  done
}
