#!/usr/bin/env python3
"""The Python package on the CPU: installs offline with pip, loads a case, passes a correct
tier-1 output computed with NumPy (code that is not ltt's) and every expected tensor, and fails
a planted bug with an assert_close-like message that names the element and the reproduce command.

usage: python_pkg.py LTT SOURCE_DIR WORKDIR
"""
import os
import shutil
import subprocess
import sys

ltt_bin, src, work = (os.path.abspath(a) for a in sys.argv[1:4])
shutil.rmtree(work, ignore_errors=True)
os.makedirs(work)
# pip install ./python, offline, into a folder of its own.
site = os.path.join(work, "site")
r = subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--no-index", "--no-build-isolation", "--no-deps",
                    "--target", site, os.path.join(src, "python")], capture_output=True, text=True)
if r.returncode != 0:
    sys.exit(f"pip install ./python failed:\n{r.stdout}\n{r.stderr}")
sys.path.insert(0, site)
os.environ["LTT"] = ltt_bin
import numpy as np  # noqa: E402

import ltt  # noqa: E402
from ltt import emulate  # noqa: E402

assert ltt.__file__.startswith(site), ltt.__file__
fails = []


def expect(cond, what):
    if not cond:
        fails.append(what)


case = ltt.case(tp=8, tokens=5, dims="small", dist="realistic", tiers=[1, 2], workdir=os.path.join(work, "case"))
expect(len(case.inputs["R"]) == 8 and case.inputs["R"][0].shape == (5, 128) and case.inputs["W"].shape == (256, 128),
       f"case shapes: {case}")
expect(sorted(case.expected) == [1, 2], "expected tensors of the tiers asked for")
for k, y in case.expected.items():
    expect(ltt.verify(case, y, tier=k).passed, f"expected.tier{k} passes")
y = emulate.tier1(case.inputs)
v = ltt.verify(case, y, tier=1)
expect(v.passed and v.outside == 0, f"NumPy's tier 1 passes: {v}")
expect(ltt.assert_verified(case, y, tier=1).passed, "assert_verified returns the verdict")
# Several ranks at once; one that differs fails the ranks check.
v = ltt.verify(case, {0: y, 5: y}, tier=1)
expect(v.passed, "two equal ranks pass")
z = y.copy()
z[3, 7] = emulate.bf16(np.float32(z[3, 7] * 1.5))
v = ltt.verify(case, {0: y, 5: z}, tier=1)
expect(not v.passed and "ranks" in v.failed_checks, f"a differing rank fails: {v}")
# A planted bug: one row scaled by 3%.
bad = y.copy()
bad[2] = emulate.bf16(bad[2] * np.float32(1.03))
try:
    ltt.assert_verified(case, bad, tier=1)
    fails.append("a row scaled by 3% passed")
except AssertionError as e:
    msg = str(e)
    expect("Mismatched elements:" in msg and "/ 1280" in msg, f"the message counts the elements: {msg}")
    expect("index (2, " in msg and "admissible [" in msg, f"the message names row 2 and the admissible set: {msg}")
    expect("reproduce:" in msg and "verify --case" in msg, f"the message has the reproduce command: {msg}")
    first = msg
# Bad input is an LttError with ltt's reason.
try:
    ltt.verify(case, y[:4], tier=1)
    fails.append("a wrong shape was accepted")
except ltt.LttError as e:
    expect("(5, 256)" in str(e), f"shape error: {e}")
try:
    ltt.case(tp=3, tokens=5, dims="small")
    fails.append("T 3 with H 256 was accepted")
except ltt.LttError as e:
    expect("not divisible by T = 3" in str(e), f"ltt's reason: {e}")

for f in fails:
    print("FAILED:", f)
print(f"python package: {'all checks passed' if not fails else f'{len(fails)} failed'}")
sys.exit(1 if fails else 0)
