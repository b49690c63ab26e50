#!/usr/bin/env python3
# scripts/torch_tiers.py must fail a run whose planted bugs plant nothing: a bug that changes no bit of the
# output is excused only for eps x10 on exact inputs or where it moves no bit of N (outlier and zero rows). Here a copy of the script computes every "bug" as the
# correct output (its one planting call given no bug); the run must exit 1 and say the planting is broken.
# Usage: torch_tiers_guard.py PYTHON_WITH_TORCH SCRIPT LTT WORKDIR
import os
import subprocess
import sys

py, script, ltt, work = sys.argv[1:5]
src = open(script).read()
planting = 'None if v == "correct" else v)'
assert src.count(planting) == 1, f"the planting call ({planting}) is not found once in {script}: update this test"
os.makedirs(work, exist_ok=True)
broken = os.path.join(work, "torch_tiers_plants_nothing.py")
with open(broken, "w") as f:
    f.write(src.replace(planting, "None)"))
for algo in ("one-shot", "ring"):
    r = subprocess.run([py, broken, "--ltt", ltt, "--work", os.path.join(work, algo), "--device", "cpu",
                        "--dims", "small", "--tp", "8", "--tokens", "5", "--dist", "realistic", "--algo", algo],
                       capture_output=True, text=True)
    print(r.stdout[-1500:], r.stderr[-1500:])
    assert r.returncode == 1, f"{algo}: a run that planted nothing exited {r.returncode}, not 1"
    assert "their planting is broken" in r.stdout, f"{algo}: the summary does not say the planting is broken"
    assert "planted bugs failed: 0 of" in r.stdout, f"{algo}: a bug failed although none was planted"
print("torch_tiers_guard: a run that plants nothing fails, one-shot and ring")
