#!/usr/bin/env python3
"""Interop, with nothing but Python's standard library (struct, json, hashlib):

1. a case file written by `ltt golden` parses with an independent reader: the
   header is padded to 8 bytes, the tensors cover the data exactly, and
   re-serialising what was parsed (compact JSON with sorted keys, data
   contiguous in name order) gives back the very same bytes; its SHA-256 is the manifest's;
2. outputs written here are judged by `ltt verify`: the expected tensors
   themselves pass (BF16 and widened to F32, two ranks), and the same outputs
   moved by 8 ULPs in a few elements fail with exit 1; a truncated case file
   is refused with exit 2.

usage: interop.py LTT WORKDIR
"""
import hashlib
import json
import os
import struct
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import stfile  # noqa: E402

ltt, work = sys.argv[1], sys.argv[2]
os.makedirs(work, exist_ok=True)
gold = os.path.join(work, "gold")
subprocess.run([ltt, "golden", "--out", gold, "--dims", "small", "--tp", "8", "--tokens", "5", "--dist", "realistic",
                "--tier", "1,2"], check=True, stdout=subprocess.DEVNULL)
manifest = json.load(open(os.path.join(gold, "manifest.json")))
entry = manifest["files"][0]
path = os.path.join(gold, entry["file"])
raw = open(path, "rb").read()

# 1. An independent reader.
(n,) = struct.unpack("<Q", raw[:8])
assert n % 8 == 0, "header not padded to a multiple of 8"
header = json.loads(raw[8:8 + n].decode("utf-8"))
data = raw[8 + n:]
meta = header.pop("__metadata__")
size = {"BF16": 2, "F32": 4, "F64": 8}
spans = sorted((v["data_offsets"][0], v["data_offsets"][1], k) for k, v in header.items())
pos = 0
for b, e, k in spans:
    assert b == pos, f"gap or overlap before {k}"
    count = 1
    for d in header[k]["shape"]:
        count *= d
    assert e - b == count * size[header[k]["dtype"]], k
    pos = e
assert pos == len(data), "bytes not exactly covered"
assert hashlib.sha256(raw).hexdigest() == entry["sha256"], "SHA-256 differs from the manifest"
assert meta == entry["metadata"]


serialise = stfile.serialise


tensors = {k: (v["dtype"], v["shape"], data[v["data_offsets"][0]:v["data_offsets"][1]]) for k, v in header.items()}
again = serialise(tensors, meta)
assert again == raw, "re-serialised bytes differ from ltt's"
print(f"1. {entry['file']}: {len(tensors)} tensors parsed, re-serialised byte for byte, SHA-256 matches")

# 2. Outputs made here, judged by ltt verify.
M, H = int(meta["tokens"]), int(meta["hidden"])
exp = tensors["expected.tier1"][2]


def verify(outputs, *extra):
    out = os.path.join(work, "out.safetensors")
    open(out, "wb").write(serialise(outputs, {}))
    return subprocess.run([ltt, "verify", "--case", path, "--output", out, *extra], capture_output=True, text=True)


r = verify({"output.tier1.rank0": ("BF16", [M, H], exp), "output.tier1.rank3": ("BF16", [M, H], exp)}, "--json",
           os.path.join(work, "t1.json"))
assert r.returncode == 0, r.stdout + r.stderr
# The case covers tiers 1 and 2: the tier left out is said, on stdout and in the JSON.
assert f"{entry['file']}: no output given for tier 2 of the 2 the case file covers (not checked)" in r.stdout, r.stdout
assert any("no output given for tier 2" in n for n in json.load(open(os.path.join(work, "t1.json")))["notes"])
f32 = b"".join(struct.pack("<I", struct.unpack("<H", exp[i:i + 2])[0] << 16) for i in range(0, len(exp), 2))
r = verify({"output": ("F32", [M, H], f32)}, "--tier", "1")
assert r.returncode == 0, r.stdout + r.stderr
bad = bytearray(exp)
for i in (0, 7, 100):
    (v,) = struct.unpack_from("<H", bad, 2 * i)
    struct.pack_into("<H", bad, 2 * i, v + 8 if (v & 0x7f80) != 0x7f80 else v)
r = verify({"output.tier1.rank0": ("BF16", [M, H], bytes(bad))})
assert r.returncode == 1, r.stdout + r.stderr
assert "FAIL tier 1 T 8 M 5 realistic" in r.stdout, r.stdout
# Ranks agree bit for bit, not by value: +0 against -0, and two NaN payloads,
# are ranks that differ (each element also falls outside its set).
for a, b in ((0x0000, 0x8000), (0x7fc0, 0x7fc1)):
    r0, r3 = bytearray(exp), bytearray(exp)
    struct.pack_into("<H", r0, 2 * 9, a)
    struct.pack_into("<H", r3, 2 * 9, b)
    rj = os.path.join(work, "ranks.json")
    r = verify({"output.tier1.rank0": ("BF16", [M, H], bytes(r0)), "output.tier1.rank3": ("BF16", [M, H], bytes(r3))},
               "--json", rj)
    c = json.load(open(rj))["cases"][0]
    assert r.returncode == 1 and "ranks" in c["failed_checks"] and c["first_differing_rank"] == 3, (hex(a), hex(b), c)
# The farthest element is printed, and kept in the JSON, where it is not
# among the first five: six elements 8 steps off, then one 200 steps off.
far = bytearray(exp)
for i, d in [(i, 8) for i in range(6)] + [(H + 3, 200)]:
    (v,) = struct.unpack_from("<H", far, 2 * i)
    assert (v & 0x7f80) != 0x7f80 and (v & 0x7fff) > 400, "a finite element not near zero"
    struct.pack_into("<H", far, 2 * i, v + d)
fj = os.path.join(work, "far.json")
r = verify({"output.tier1.rank0": ("BF16", [M, H], bytes(far))}, "--json", fj)
c = json.load(open(fj))["cases"][0]
assert r.returncode == 1 and f"farthest: [1, 3] got" in r.stdout and "200 bf16 steps outside" in r.stdout, r.stdout
assert c["farthest_outside"]["index"] == [1, 3] and c["farthest_outside"]["steps"] == 200, c["farthest_outside"]
assert len(c["first_outside"]) == 7 and c["admissible"]["steps_max"] == 200, c
trunc = os.path.join(work, "truncated.safetensors")
open(trunc, "wb").write(raw[: len(raw) // 2])
r = subprocess.run([ltt, "verify", "--case", trunc, "--output", trunc], capture_output=True, text=True)
assert r.returncode == 2 and "truncated.safetensors" in r.stderr, r.stderr
# A directory of cases against a directory of outputs under the same names.
cases, outs = os.path.join(work, "cases"), os.path.join(work, "outs")
os.makedirs(cases, exist_ok=True)
os.makedirs(outs, exist_ok=True)
open(os.path.join(cases, entry["file"]), "wb").write(raw)
open(os.path.join(outs, entry["file"]), "wb").write(serialise({"output.tier2.rank5": ("BF16", [M, H], tensors["expected.tier2"][2])}, {}))
r = subprocess.run([ltt, "verify", "--case", cases, "--output", outs, "--json", os.path.join(work, "v.json")],
                   capture_output=True, text=True)
assert r.returncode == 0, r.stdout + r.stderr
v = json.load(open(os.path.join(work, "v.json")))
assert [c["tier"] for c in v["cases"]] == [2] and v["cases"][0]["pass"], v
assert v["cases"][0]["outputs_note"].startswith(f"case {entry['file']}") and f"case {entry['file']}" in r.stdout, r.stdout
print("2. ltt verify: exact outputs pass (BF16, F32, a directory, its rows named by case), moved ones fail (exit 1), ranks differing in a\n"
      "   zero's sign or a NaN's payload fail as ranks, the farthest element is named, a truncated case is refused (exit 2)")
print("2 passed, 0 failed")
