#!/usr/bin/env python3
# scripts/numpy_tiers.py must be able to fail: (1) a copy whose bugs plant nothing (its one planting argument
# given no bug) must exit 1 saying the planting is broken; (2) a copy whose members sum the one-shot reduction
# with Kahan's compensation, which is not an order (on the bf16 maximum rows inf - inf gives NaN where every
# order gives inf), must exit 1 saying a correct member failed.
# Usage: numpy_tiers_guard.py PYTHON_WITH_NUMPY SCRIPT LTT WORKDIR
import os
import subprocess
import sys

py, script, ltt, work = sys.argv[1:5]
src = open(script).read()
planting = "run_tier(c, k, meta, t, knobs.get('bug', ''))"
choices = "'red': ['rank', 'rev', 'elem', 'pair', 'f64', 'zinit'],"
for s in (planting, choices):
    assert src.count(s) == 1, f"'{s}' is not found once in {script}: update this test"
os.makedirs(work, exist_ok=True)
# The copies live in WORKDIR, so the package the script imports (python/ beside it) goes on their path.
env = dict(os.environ, PYTHONPATH=os.path.join(os.path.dirname(os.path.abspath(script)), "..", "python"))
copies = {
    "plants_nothing": (src.replace(planting, "run_tier(c, k, meta, t, '')"), "its planting is broken"),
    "kahan_member": (src.replace(choices, "'red': ['kahan'],"), "a correct member failed"),
}
for name, (text, said) in copies.items():
    path = os.path.join(work, f"numpy_tiers_{name}.py")
    with open(path, "w") as f:
        f.write(text)
    r = subprocess.run([py, path, "--ltt", ltt, "--work", os.path.join(work, name), "--tp", "8", "--tokens", "33",
                        "--dist", "adversarial", "--algo", "one-shot", "--members", "1"], capture_output=True, text=True, env=env)
    print(r.stdout[-1500:], r.stderr[-1500:])
    assert r.returncode == 1, f"{name}: the run exited {r.returncode}, not 1"
    assert said in r.stdout, f"{name}: the output does not say '{said}'"
print("numpy_tiers_guard: a run that plants nothing fails, and so does a member outside the contract")
