#!/usr/bin/env python3
"""A drift must fail `ltt regress` (exit 1) and be named: write a small golden
set, then change one element of one tensor (and, separately, a hash-only
entry's hash), and check that regress names the set, the tensor and the
element (or the hash). usage: golden_drift.py LTT WORKDIR"""
import json
import os
import shutil
import struct
import subprocess
import sys

ltt, work = sys.argv[1], sys.argv[2]
shutil.rmtree(work, ignore_errors=True)
subprocess.run([ltt, "golden", "--out", work, "--dims", "small", "--tp", "8", "--tokens", "5", "--dist", "realistic",
                "--tier", "1"], check=True, stdout=subprocess.DEVNULL)
r = subprocess.run([ltt, "regress", work], capture_output=True, text=True)
assert r.returncode == 0, r.stdout + r.stderr
man = json.load(open(os.path.join(work, "manifest.json")))
name = man["files"][0]["file"]
path = os.path.join(work, name)
raw = bytearray(open(path, "rb").read())
(n,) = struct.unpack_from("<Q", raw, 0)
head = json.loads(raw[8:8 + n])
b = head["expected.tier1"]["data_offsets"][0] + 8 + n
raw[b + 2 * 300] ^= 0x01  # element 300 of expected.tier1: row 1, column 44
open(path, "wb").write(raw)
r = subprocess.run([ltt, "regress", work], capture_output=True, text=True)
assert r.returncode == 1, r.stdout + r.stderr
assert f"DRIFT {name}: tensor 'expected.tier1' differs first at element [1, 44]" in r.stdout, r.stdout

# A hash-only entry whose hash no longer matches (no file on disk: a present
# one is checked by its own hash first).
os.remove(path)
man["files"][0]["committed"] = False
man["files"][0]["sha256"] = "0" * 64
json.dump(man, open(os.path.join(work, "manifest.json"), "w"))
r = subprocess.run([ltt, "regress", work], capture_output=True, text=True)
assert r.returncode == 1 and "the manifest says " + "0" * 64 in r.stdout, r.stdout
print("2 passed, 0 failed")
