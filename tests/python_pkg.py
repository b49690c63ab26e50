#!/usr/bin/env python3
"""The Python package on the CPU: installs offline with pip, loads a case, passes a correct
tier-1 output computed with NumPy (code that is not ltt's) and every expected tensor, and fails
a planted bug with an assert_close-like message that names the element and the reproduce command.
Also: case() in a workdir holding other cases returns the one asked for, and refuses several values;
a bad $LTT and no binary are LttErrors that say where ltt looked; temporary folders are removed.

usage: python_pkg.py LTT SOURCE_DIR WORKDIR
"""
import fcntl
import gc
import json
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile

ltt_bin, src, work = (os.path.abspath(a) for a in sys.argv[1:4])
shutil.rmtree(work, ignore_errors=True)
os.makedirs(work)
# The README's `pip install --no-index --no-deps ./python`, into a folder of its own.
site = os.path.join(work, "site")
r = subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--no-index", "--no-deps",
                    "--target", site, os.path.join(src, "python")], capture_output=True, text=True)
if r.returncode != 0:
    sys.exit(f"pip install ./python failed:\n{r.stdout}\n{r.stderr}")
sys.path.insert(0, site)
os.environ["LTT"] = ltt_bin
tmp = os.path.join(work, "tmp")  # the package's temporary folders go here, to see that they are removed
os.makedirs(tmp)
tempfile.tempdir = tmp
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
# Found by the thirty-second session's red team: on exact inputs every order's sum of squares is exact, so
# rstd may differ only by rsqrt's ULPs; eps added outside the square root (rstd moved 15-59 fp32 ULPs) passed.
xc = ltt.case(tp=16, tokens=129, dims="small", dist="exact", tiers=[1])
expect(ltt.verify(xc, emulate.tier1(xc.inputs), tier=1).passed, "NumPy's tier 1 passes on exact inputs")
Zx = emulate.bf16(np.sum(np.stack(xc.inputs["R"]), axis=0, dtype=np.float32))
Sx = emulate.bf16(np.sum(np.stack(xc.inputs["S"]), axis=0, dtype=np.float32))
msx = np.sum(Zx * Zx, axis=1, dtype=np.float32) / np.float32(Zx.shape[1])
rx = (np.float32(1) / (np.sqrt(msx) + np.float32(1e-6))).astype(np.float32)  # the bug: eps outside the root
Nx = emulate.bf16(emulate.bf16(Zx * rx[:, None]) * xc.inputs["g"][None, :])
yx = emulate.bf16(emulate.bf16(np.matmul(Nx, xc.inputs["W"].T, dtype=np.float32)) + Sx)
vx = ltt.verify(xc, yx, tier=1)
expect(not vx.passed and vx.outside > 0 and not np.array_equal(yx, emulate.tier1(xc.inputs)),
       f"eps outside the root on exact inputs fails: {vx}")
# Found by the thirty-third session's red team: there every product of N W^T is a multiple of one quantum and
# their sum exact in every order, so a tie is a tie in every member and rounds to even; rounding the GEMM's
# output half away from zero passed.
r_ok = (np.float32(1) / np.sqrt(msx + np.float32(1e-6))).astype(np.float32)
N_ok = emulate.bf16(emulate.bf16(Zx * r_ok[:, None]) * xc.inputs["g"][None, :])
P_ok = np.matmul(N_ok, xc.inputs["W"].T, dtype=np.float32)
half_away = ((P_ok.view(np.uint32) + np.uint32(0x8000)) & np.uint32(0xFFFF0000)).view(np.float32)
y_ha = emulate.bf16(half_away + Sx)
v_ha = ltt.verify(xc, y_ha, tier=1)
expect(not np.array_equal(half_away, emulate.bf16(P_ok)) and not np.array_equal(y_ha, emulate.tier1(xc.inputs))
       and not v_ha.passed and v_ha.outside > 0, f"round-half-away at the GEMM's output on exact inputs fails: {v_ha}")
del xc
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
# Failing outputs on a kept case (workdir) stay, in that workdir, so that `reproduce` runs; passing ones are removed.
v = ltt.verify(case, bad, tier=1)
expect(v.kept and v.kept in v.reproduce and os.path.isdir(v.kept), f"a failing output is kept for reproduce: {v.kept}")
expect(os.path.dirname(v.kept) == os.path.join(work, "case"), f"kept in the case's workdir, not the system's temp: {v.kept}")
v2 = ltt.verify(case, bad, tier=1, workdir=os.path.join(work, "mine"))
expect(os.path.dirname(v2.kept) == os.path.join(work, "mine"), f"kept where verify's workdir says: {v2.kept}")
v3 = ltt.verify(case, bad, tier=1, workdir=os.path.relpath(os.path.join(work, "rel")))
expect(os.path.isabs(v3.kept) and v3.kept in v3.reproduce, f"a relative workdir keeps an absolute path, for reproduce: {v3.kept}")
# The case's metadata, and the RMSNorm order of its expected outputs (F.rms_norm rounds once: "fused").
expect(case.eps == 1e-6 and case.norm == "declared", f"eps and norm of a default case: {case.eps} {case.norm}")
fused = ltt.case(tp=8, tokens=5, dims="small", tiers=[2], norm="fused", workdir=os.path.join(work, "case"))
expect(fused.norm == "fused" and fused.meta["rmsnorm_order"] == "fused", f"case(norm='fused'): {fused.meta}")
expect(ltt.verify(fused, fused.expected[2], tier=2).passed, "a fused case's own expected output passes")
r = subprocess.run(v.reproduce, shell=True, capture_output=True, text=True)
expect(r.returncode == 1, f"the reproduce command fails the output again: {r.returncode} {r.stderr}")
for name in os.listdir(tmp):
    shutil.rmtree(os.path.join(tmp, name))  # the kept failing outputs above
expect(ltt.verify(case, y, tier=1).kept is None and os.listdir(tmp) == [], f"a passing verify leaves {os.listdir(tmp)}")
# The greatest distance is over every element, not only the 20 listed: row 0 a few steps off
# (the first 20 outside), one element of row 4 far off.
far = y.copy()
far[0] = emulate.bf16(far[0] * np.float32(1.05))
far[4, 100] = emulate.bf16(np.float32(far[4, 100] * 8 + 1))
v = ltt.verify(case, far, tier=1)
shown = re.search(r"Greatest distance: (\S+) bf16 steps", v.message())
listed = max(float(f["steps"]) for f in v.first_outside)
expect(v.outside > 20 and v.steps_max > listed, f"the far element is past the listed ones: {v.outside} {v.steps_max} {listed}")
# The farthest element is the report's farthest_outside, named with its index (it was "an element after
# the first 20", with the farthest of the 20 named instead).
expect(shown and float(shown.group(1)) == v.steps_max and f"bf16 steps at index (4, 100)" in v.message(),
       f"the message gives the greatest distance over every element ({v.steps_max}) and where: {v.message()}")
nan = y.copy()
nan[1, 2] = np.nan
expect("Greatest distance: a NaN/Inf class mismatch at index (1, 2)" in ltt.verify(case, nan, tier=1).message(),
       "a NaN where a number belongs is the greatest distance")
for name in os.listdir(tmp):
    shutil.rmtree(os.path.join(tmp, name))
# Bad input is an LttError with ltt's reason.
try:
    ltt.verify(case, y[:4], tier=1)
    fails.append("a wrong shape was accepted")
except ltt.LttError as e:
    expect("(5, 256)" in str(e), f"shape error: {e}")
# The case file's figures are read-only: verify's shape check reads them, so a changed case.tokens refused the
# right output before ltt read it (and a list of tiers changed in place changed the case's own).
for attr, value in (("tokens", 4), ("tp", 16), ("hidden", 128), ("latent", 64), ("eps", 1e-5), ("norm", "fused"), ("tiers", [1])):
    try:
        setattr(case, attr, value)
        fails.append(f"case.{attr} could be changed")
    except AttributeError:
        pass
case.tiers.append(3)
expect(case.tiers == [1, 2] and ltt.verify(case, y, tier=1).passed, f"case.tiers after an append to a copy: {case.tiers}")
try:
    ltt.case(tp=3, tokens=5, dims="small")
    fails.append("T 3 with H 256 was accepted")
except ltt.LttError as e:
    expect("not divisible by T = 3" in str(e), f"ltt's reason: {e}")
# case() in a workdir that holds other cases returns the one asked for.
cw = os.path.join(work, "cases")
for ask, check in ((dict(eps=1e-5), lambda c: float(c.meta["eps"]) == 1e-5), (dict(), lambda c: float(c.meta["eps"]) == 1e-6),
                   (dict(algo="ring"), lambda c: c.meta["algo"] == "ring"), (dict(), lambda c: c.meta["algo"] == "one-shot"),
                   (dict(dims="1024,512"), lambda c: c.hidden == 1024), (dict(), lambda c: c.hidden == 256),
                   (dict(tiers=[1, 2]), lambda c: c.tiers == [1, 2]), (dict(), lambda c: c.tiers == [1]),
                   (dict(seed=1), lambda c: c.meta["seed"] == "1"), (dict(), lambda c: c.meta["seed"] == "0")):
    c = ltt.case(**{"tp": 8, "tokens": 5, "dims": "small", "dist": "realistic", "tiers": [1], **ask}, workdir=cw)
    expect(check(c), f"case({ask}) in a workdir of other cases: {c.meta} {c.path}")
# One case per call: several values are refused before anything is written.
for ask, word in ((dict(dist="all"), "dist"), (dict(dist="realistic,adversarial"), "dist"), (dict(tokens=[1, 5]), "tokens"),
                  (dict(tp="8,16"), "tp")):
    try:
        ltt.case(**ask)
        fails.append(f"case({ask}) was accepted")
    except ltt.LttError as e:
        expect(str(e).startswith(f"ltt.case: {word} must be one") and "once per" in str(e), f"case({ask}): {e}")
# Without workdir the case's folder goes with the Case; a passing verify leaves nothing.
c = ltt.case(tp=8, tokens=5, dims="small", tiers=[1])
expect(os.path.exists(c.path) and ltt.verify(c, c.expected[1], tier=1).passed, "a temporary case verifies")
v = ltt.verify(c, bad, tier=1)
expect(v.kept is None and "temporary" in v.message(), f"a failing output on a temporary case is not kept: {v.message()}")
expect(len(os.listdir(tmp)) == 1, f"only the case's folder while the Case lives: {os.listdir(tmp)}")
del c
gc.collect()
expect(os.listdir(tmp) == [], f"the case's folder goes with the Case: {os.listdir(tmp)}")
# Found by a review acting as a new user.
# One rank given twice (0 and "0") kept the last in silence: a wrong output passed.
for outs in ({0: bad, "0": y}, {0: y, 1: bad, "1": y}):
    try:
        ltt.verify(case, outs, tier=1)
        fails.append(f"a rank given twice was accepted: {list(outs)}")
    except ltt.LttError as e:
        expect("given twice" in str(e), f"a rank given twice: {e}")
# A differing rank is named, with its first element.
try:
    ltt.assert_verified(case, {0: y, 5: z}, tier=1)
    fails.append("a differing rank passed")
except AssertionError as e:
    expect("rank 5's output differs from rank 0's, first at index (3, 7)" in str(e), f"the differing rank named: {e}")
v = ltt.verify(case, {2: y, 5: z}, tier=1)
expect(v.report.get("compared_with_rank") == 2 and "differs from rank 2's" in v.message(), f"compared with the lowest rank given: {v.message()}")
for name in os.listdir(tmp):
    shutil.rmtree(os.path.join(tmp, name))
# ltt's own refusal names the case and the tier, not the temporary folder the output went through (gone
# once the error is read).
try:
    ltt.verify(case, {9: y}, tier=1)
    fails.append("rank 9 of T 8 was accepted")
except ltt.LttError as e:
    expect(str(e).startswith(f"ltt.verify (case {case.path}, tier 1): ") and "ltt-verify-" not in str(e)
           and "rank9" in str(e), f"ltt's refusal without the temporary paths: {e}")
for name in os.listdir(tmp):
    shutil.rmtree(os.path.join(tmp, name))
# Bad arguments and files are LttErrors, not Python's own exceptions.
junk = os.path.join(work, "junk.safetensors")
open(junk, "wb").write(b"not a safetensors file at all")
cut = os.path.join(work, "cut.safetensors")
open(cut, "wb").write(open(case.path, "rb").read()[:5000])
outs_file = os.path.join(work, "outs.safetensors")


def crafted(name, header):  # a file whose JSON header is `header`, followed by 8 zero bytes
    h = json.dumps(header).encode()
    h += b" " * (-len(h) % 8)
    path = os.path.join(work, name)
    open(path, "wb").write(struct.pack("<Q", len(h)) + h + bytes(8))
    return path


no_offsets = crafted("no_offsets.safetensors", {"output": {"dtype": "F32", "shape": [2]}})
text_shape = crafted("text_shape.safetensors", {"output": {"dtype": "F32", "shape": "2", "data_offsets": [0, 8]}})
odd_meta = crafted("odd_meta.safetensors", {"__metadata__": {"tp": 8}})
ltt._core._write(outs_file, {"output": y})
# Case files ltt refuses are refused by Case() too (found by the thirty-first session's new users): a
# metadata count that its tensors do not have, a tensor no case file holds, a header nested past any.
raw = open(case.path, "rb").read()
(hn,) = struct.unpack("<Q", raw[:8])
head = json.loads(raw[8:8 + hn])


def recrafted(name, edit):  # case.path with its header edited by `edit`
    h = json.loads(json.dumps(head))
    edit(h)
    b = json.dumps(h).encode()
    b += b" " * (-len(b) % 8)
    path = os.path.join(work, name)
    open(path, "wb").write(struct.pack("<Q", len(b)) + b + raw[8 + hn:])
    return path


fewer = recrafted("fewer.safetensors", lambda h: h["__metadata__"].update(tokens=str(case.tokens - 1)))
# (a tensor of its own, empty, at the data's end: sharing another's bytes is refused as an overlap first)
extra = recrafted("extra.safetensors", lambda h: h.update(foo={"dtype": "BF16", "shape": [0], "data_offsets": [len(raw) - 8 - hn] * 2}))
deep = os.path.join(work, "deep.safetensors")
dh = ('{"a":' + "[" * 100000 + "]" * 100000 + "}").encode()
open(deep, "wb").write(struct.pack("<Q", len(dh)) + dh)
for call, needle in ((lambda: ltt.Case(fewer), "has shape"), (lambda: ltt.Case(extra), "tensor 'foo' is none this case file holds"),
                     (lambda: ltt.Case(deep), "nests too deep"), (lambda: ltt.case(algo=1), "algo must be a string"),
                     (lambda: ltt.verify(None, y, tier=1), "case must be an ltt.Case"),
                     (lambda: ltt.verify(case, None, tier=1), "is None"),
                     (lambda: ltt.case(tiers=1.5), "tiers must be 'all', one tier"), (lambda: ltt.case(eps="abc"), "eps must be a number"),
                     (lambda: ltt.verify(case, y, tier=1, rank=[0, 1]), "a rank must be an integer"),
                     # a digit that int() does not read ("\u00b2".isdigit() is True)
                     (lambda: ltt.verify(case, y, tier="\u00b2"), "tier must be an integer"),
                     (lambda: ltt.case(tp="\u00b2"), "tp must be one integer"),
                     (lambda: ltt.verify(case, "abc", tier=1), "not an array of numbers"),
                     (lambda: ltt.verify(case, y + 1j, tier=1), "is complex"),
                     (lambda: ltt.verify(case, y, tier=1, workdir=junk), "cannot use it as a folder"),
                     (lambda: ltt.Case(outs_file), "not an ltt case file"), (lambda: ltt.Case(cut), "cut short"),
                     (lambda: ltt.Case(junk), "not a safetensors file"),
                     (lambda: ltt.Case(no_offsets), "lacks a shape and data_offsets"),
                     (lambda: ltt.Case(text_shape), "lacks a shape and data_offsets"),
                     (lambda: ltt.Case(odd_meta), "__metadata__ is not an object of strings")):
    try:
        call()
        fails.append(f"accepted: {needle}")
    except Exception as e:
        expect(isinstance(e, ltt.LttError) and needle in str(e), f"want an LttError naming {needle!r}: {e!r}")
expect(ltt.case(tp=8, tokens=5, dims="small", tiers=1, workdir=os.path.join(work, "case")).tiers == [1], "tiers=1, one integer")
# Found by the fifty-first session's review: Case() loaded files ltt refuses. A tensor given twice in the header
# (Python's json keeps the last: R[0] was rank 1's), eps 'nan', bytes past the last tensor.
head_text, body = raw[8:8 + hn].decode().rstrip(), raw[8 + hn:]  # case.path's header (recrafted's `head`) as written
hj = json.loads(head_text)
def case_variant(name, text, tail=b""):
    t = text.encode()
    t += b" " * (-len(t) % 8)
    path = os.path.join(work, name)
    open(path, "wb").write(struct.pack("<Q", len(t)) + t + body + tail)
    return path
dup = case_variant("dupkey.safetensors", head_text[:-1] + ',"routed.rank0":' + json.dumps(hj["routed.rank1"]) + "}")
hj["__metadata__"]["eps"] = "nan"
epsnan = case_variant("epsnan.safetensors", json.dumps(hj))
trailing = case_variant("trailing.safetensors", head_text, bytes(8))
for path, needle in ((dup, "gives 'routed.rank0' twice"), (epsnan, "eps 'nan' is not in (0, 1]"), (trailing, "8 trailing bytes")):
    try:
        ltt.Case(path)
        fails.append(f"Case() accepted {path}")
    except ltt.LttError as e:
        expect(needle in str(e), f"Case({os.path.basename(path)}): {e}")
    r = subprocess.run([ltt_bin, "verify", "--case", path, "--output", outs_file, "--tier", "1"], capture_output=True, text=True)
    expect(r.returncode == 2, f"ltt refuses {os.path.basename(path)} too (exit {r.returncode})")
# Found by the fiftieth session's review of the package.
# (a) float64 was rounded to float32, then by ltt to bf16: twice. A value just past a bf16 halfway point
# landed on it, and ties-to-even took the wrong neighbour: a wrong output passed, a right one failed.
ulp = 2.0 ** (np.floor(np.log2(np.abs(y.astype(np.float64)) + 1e-300)) - 7)  # a bf16 step at each element
over = y.astype(np.float64) - np.sign(y) * ulp * (0.5 + 2.0 ** -30)  # past half a step toward zero: rounds to y's neighbour
under = y.astype(np.float64) + np.sign(y) * ulp * (0.5 - 2.0 ** -30)  # short of half a step away: rounds back to y
i = (0, 0) if y[0, 0] != 0 else (0, 1)
one = y.astype(np.float64)
one[i] = over[i]
expect(not ltt.verify(case, one, tier=1).passed and ltt.verify(case, under, tier=1).passed,
       "float64 rounded once to bf16: one element a half step past its value fails, every one a half step short passes")
expect(np.array_equal(emulate.bf16(ltt._core._to_numpy(under)), y) and emulate.bf16(np.float64(1.0039062509313226)) == np.float32(1.0078125),
       "float64 to bf16 once: the package's outputs and emulate.bf16")
try:
    import torch
    expect(ltt.verify(case, torch.from_numpy(under), tier=1).passed and not ltt.verify(case, torch.from_numpy(one), tier=1).passed,
           "a torch float64 output rounded once")
except ImportError:
    pass
# (b) Values that are no numbers were converted and judged; a rank beside a dict of ranks was ignored; bad
# tiers were a TypeError; eps=True was 1.0; norm=case.norm ("declared") was refused; "" and False ignored.
for call, needle in ((lambda: ltt.verify(case, y > 0, tier=1), "not numbers"),
                     (lambda: ltt.verify(case, y.astype(str), tier=1), "not numbers"),
                     (lambda: ltt.verify(case, {0: y}, tier=1, rank=5), "rank=5 with a dict of outputs"),
                     (lambda: ltt.verify(case, y[:4], tier=1), "ltt.verify: the output of rank 0 has shape (4, 256)"),
                     (lambda: ltt.case(tiers=[1, "x"]), "'x' is not a tier"),
                     (lambda: ltt.case(tiers=[1, None]), "None is not a tier"),
                     (lambda: ltt.case(tiers=[]), "tiers is empty"),
                     (lambda: ltt.case(eps=True), "eps must be a number, not True"),
                     (lambda: ltt.case(norm=False), "norm must be None"),
                     (lambda: ltt.case(algo=""), "algo must be a string"),
                     (lambda: ltt.case(workdir=""), "workdir must be a folder's path")):
    try:
        call()
        fails.append(f"accepted: {needle}")
    except Exception as e:
        expect(isinstance(e, ltt.LttError) and needle in str(e), f"want an LttError naming {needle!r}: {e!r}")
try:
    ltt.case(tp=8.5)
except ltt.LttError as e:
    expect("call it once per value" not in str(e), f"tp=8.5 is no list of values: {e}")
expect(ltt.case(tp=8, tokens=5, dims="small", tiers=np.array([2, 1]), workdir=os.path.join(work, "case")).tiers == [1, 2]
       and ltt.case(tp=8, tokens=5, dims="small", tiers=[1], norm=case.norm, workdir=os.path.join(work, "case")).norm == "declared",
       "tiers as an array; norm=case.norm")
# (c) Case(path) loaded files ltt refuses: a tensor of another dtype, metadata lacking rmsnorm_order or
# holding a value ltt refuses; a FIFO was waited on in silence.
f32 = recrafted("f32.safetensors", lambda h: h["routed.rank0"].update(dtype="F32"))
raw_f32 = open(f32, "rb").read()
(n32,) = struct.unpack("<Q", raw_f32[:8])
h32 = json.loads(raw_f32[8:8 + n32])
b, e_ = h32["routed.rank0"]["data_offsets"]
h32["routed.rank0"]["data_offsets"] = [b, b + 2 * (e_ - b)]  # a whole F32 tensor: the others' offsets shift
for name, t in h32.items():
    if name != "__metadata__" and name != "routed.rank0" and t["data_offsets"][0] >= e_:
        t["data_offsets"] = [x + (e_ - b) for x in t["data_offsets"]]
hb = json.dumps(h32).encode()
hb += b" " * (-len(hb) % 8)
data = raw_f32[8 + n32:]
open(f32, "wb").write(struct.pack("<Q", len(hb)) + hb + data[:e_] + bytes(e_ - b) + data[e_:])
fifo = os.path.join(work, "case.fifo")
os.mkfifo(fifo)
for path, needle in ((f32, "tensor 'routed.rank0' is F32, a case file's is BF16"),
                     (recrafted("nonorm.safetensors", lambda h: h["__metadata__"].pop("rmsnorm_order")), "lack rmsnorm_order"),
                     (recrafted("bogus.safetensors", lambda h: h["__metadata__"].update(rmsnorm_order="bogus")), "rmsnorm_order 'bogus'"),
                     (fifo, "is not a regular file")):
    try:
        ltt.Case(path)
        fails.append(f"Case() accepted {path}")
    except Exception as e:
        expect(isinstance(e, ltt.LttError) and needle in str(e), f"want an LttError naming {needle!r}: {e!r}")
    r = subprocess.run([ltt_bin, "verify", "--case", path, "--output", outs_file], capture_output=True, text=True, timeout=10) \
        if path != fifo else None
    expect(r is None or r.returncode == 2, f"ltt refuses {path} too: {r and r.stderr}")
# (d) A copy of a temporary Case keeps its folder while it lives (the original's collection removed it).
import copy  # noqa: E402
tc = ltt.case(tp=8, tokens=5, dims="small", tiers=[1])
cc = copy.copy(tc)
del tc
gc.collect()
expect(os.path.exists(cc.path) and ltt.verify(cc, y, tier=1).passed, "a copy keeps the temporary case's folder")
folder = os.path.dirname(cc.path)
del cc
gc.collect()
expect(not os.path.exists(folder), f"the folder goes with the last copy: {folder}")
# (e) A folder whose name is not UTF-8 (ltt echoes it): no UnicodeDecodeError.
odd = os.path.join(os.fsencode(work), b"odd\xff")
os.makedirs(odd)
try:
    oc = ltt.case(tp=8, tokens=5, dims="small", tiers=[1], workdir=os.fsdecode(odd))
    expect(not ltt.verify(oc, bad, tier=1).passed, "a failing output in a non-UTF-8 folder")
except Exception as e:
    fails.append(f"a non-UTF-8 workdir: {e!r}")
# (f) A program that is not ltt and writes no report: its exit status and the question, not an empty reason.
os.environ["LTT"] = shutil.which("false")
try:
    ltt.verify(case, y, tier=1)
    fails.append("LTT=false gave a verdict")
except Exception as e:
    expect(isinstance(e, ltt.LttError) and "(exit 1) wrote no report: it said nothing: is it ltt?" in str(e), f"LTT=false: {e!r}")
os.environ["LTT"] = ltt_bin
expect(bool(ltt.verify(case.path, y, tier=1)) == bool(ltt.verify(case, y, tier=1)), "verify takes a case file's path as its Case")
# An $LTT that runs but is no ltt (it exits 0 and writes nothing): an LttError, not FileNotFoundError.
os.environ["LTT"] = shutil.which("true")
try:
    ltt.case(tp=8, tokens=5, dims="small", tiers=[1])
    fails.append("LTT=true gave a case")
except Exception as e:
    expect(isinstance(e, ltt.LttError) and "left no manifest" in str(e), f"LTT=true: {e!r}")
os.environ["LTT"] = ltt_bin
# A relative workdir holds after a chdir; its reproduce runs from anywhere.
here = os.getcwd()
os.chdir(work)
rc = ltt.case(tp=8, tokens=5, dims="small", tiers=[1], workdir="relcase")
os.chdir("/")
vr = ltt.verify(rc, bad, tier=1)
r = subprocess.run(vr.reproduce, shell=True, capture_output=True, text=True)
expect(os.path.isabs(rc.path) and not vr.passed and r.returncode == 1 and not os.path.exists("/relcase"),
       f"a relative workdir after a chdir: {rc.path} {r.returncode} {r.stderr}")
os.chdir(here)
# Two processes making cases in one workdir at once (pytest -n): each waits for the other's hold on a set.
shared = os.path.join(work, "shared")
prog = ("import sys, ltt\n"
        "for seed in range(6):\n"
        "    ltt.case(tp=8, tokens=5, dims='small', tiers=[1], seed=seed, workdir=sys.argv[1])\n")
env = dict(os.environ, PYTHONPATH=site)
procs = [subprocess.Popen([sys.executable, "-c", prog, shared], env=env, stderr=subprocess.PIPE, text=True) for _ in range(2)]
errs = [(p.wait(timeout=300), p.stderr.read()) for p in procs]
expect(all(rc_ == 0 for rc_, _ in errs), f"two processes sharing a workdir: {errs}")
# The wait itself, made certain: this process holds a set as a golden run would (an exclusive flock on
# its folder), and lets go only once case()'s first golden run on that set has ended (refused): case()
# must run golden again and return the case.
held = ltt.case(tp=8, tokens=5, dims="small", tiers=[1], seed=0, workdir=shared)
fd = os.open(os.path.dirname(held.path), os.O_RDONLY | os.O_DIRECTORY)
fcntl.flock(fd, fcntl.LOCK_EX)
real_run, runs = ltt._core._run, []


def run_then_let_go(args):
    runs.append(args[0])
    try:
        return real_run(args)
    finally:
        if len(runs) == 1:
            os.close(fd)


ltt._core._run = run_then_let_go
try:
    again = ltt.case(tp=8, tokens=5, dims="small", tiers=[1], seed=0, workdir=shared)
    expect(again.path == held.path and runs == ["golden", "golden"],
           f"case() on a set another run holds: {again.path}, runs {runs}")
except ltt.LttError as e:
    fails.append(f"case() on a set another run holds did not wait: {e}")
finally:
    ltt._core._run = real_run
# A bad $LTT, and no binary at all from the installed copy: LttErrors that say where ltt looked.
for bad_ltt, why in (("/nonexistent/ltt", "does not exist"), (work, "is not an executable file")):
    os.environ["LTT"] = bad_ltt
    try:
        ltt.case(tp=8, tokens=5, dims="small", tiers=[1])
        fails.append(f"LTT={bad_ltt} was accepted")
    except Exception as e:  # an LttError, not the OSError of running it
        expect(isinstance(e, ltt.LttError) and f"$LTT={bad_ltt} {why}" in str(e), f"LTT={bad_ltt}: {e!r}")
del os.environ["LTT"]
path = os.environ.get("PATH", "")
os.environ["PATH"] = tmp  # no ltt there
try:
    ltt.binary()
    fails.append("the installed copy found a binary with no $LTT and no ltt on PATH")
except ltt.LttError as e:
    expect(f"imported from {os.path.join(site, 'ltt')}" in str(e) and "LTT=" in str(e), f"no binary: {e}")
os.environ["PATH"], os.environ["LTT"] = path, ltt_bin
expect(os.listdir(tmp) == [], f"temporary folders left: {os.listdir(tmp)}")

for f in fails:
    print("FAILED:", f)
print(f"python package: {'all checks passed' if not fails else f'{len(fails)} failed'}")
sys.exit(1 if fails else 0)
