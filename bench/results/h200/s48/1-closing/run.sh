# Forty-eighth session, call 1, a fresh machine: session 47's tree, which
# never ran on a GPU (check's, verify's, mutants', --invariance's and
# bench's reports hold the results so far while the run is on): every
# target built (gcc 13); a cuda check and a bench killed part way keep what
# they judged in their JSON, and a bench run to the end says finished; then
# device-steps.sh's closing checks (the suite by the README's GPU-machine
# command, the cuda mutants, process per rank against the fake ranks, the
# main job's adversarial cases), compute-sanitizer's four tools on a small
# case of every tier, and the speed figures where the card is an H200; to
# the deadline.
. scripts/device-steps.sh
build
# A cuda run (fake ranks, k3, T 8, every tier at M 2048 and 8192) killed by
# SIGKILL once its second row is out: its JSON must hold the cases judged.
s killed 60 python3 -c '
import json, subprocess, sys
p = subprocess.Popen([sys.argv[1], "check", "--backend", "cuda", "--dims", "k3", "--tp", "8", "--tokens", "2048,8192",
                      "--dist", "realistic", "--json", "killed.json"], stdout=subprocess.PIPE, text=True)
rows = 0
for line in p.stdout:
    print(line, end="")
    rows += not line.startswith("#") and line.rstrip().endswith((" ok", " FAIL"))
    if rows == 2:
        break
on = p.poll() is None
p.kill(); p.wait()
j = json.load(open("killed.json"))
print("still on when killed:", on, "| finished:", j.get("finished"), "| cases_done:", j.get("cases_done"), "of", j.get("cases_planned"),
      "| summary:", "summary" in j, "| passes:", [c["pass"] for c in j.get("cases", [])])
' "$L"
grep 'still on' "$R/killed.out"
# ltt bench's --json: a run killed after its third row keeps those rows
# (unfinished); a short one run to the end says finished.
s bench_killed 90 python3 -c '
import json, subprocess, sys
p = subprocess.Popen([sys.argv[1], "bench", "--backend", "cuda", "--dims", "k3", "--tp", "8", "--tokens", "1,2048",
                      "--json", "kb.json"], stdout=subprocess.PIPE, text=True)
rows = 0
for line in p.stdout:
    print(line, end="")
    rows += not line.startswith("#") and bool(line.strip())
    if rows == 3:
        break
on = p.poll() is None
p.kill(); p.wait()
j = json.load(open("kb.json"))
print("bench still on when killed:", on, "| finished:", j.get("finished"), "| rows kept:", len(j.get("rows", [])))
' "$L"
grep 'bench still on' "$R/bench_killed.out"
s bench_whole 60 "$L" bench --backend cuda --dims 1024,512 --tp 8 --tier 0 --tokens 1 --reps 3 --json fb.json
python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); print("bench to the end: finished", j.get("finished"), "rows", len(j["rows"]))' "$W/fb.json"
closing
sanitize memcheck racecheck synccheck initcheck
speed
