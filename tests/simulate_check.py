#!/usr/bin/env python3
"""ltt simulate: its outputs agree with themselves and with the model's
claims, the built-in machine is the committed file, what-if flags move the
predictions the way physics says, and bad machine files are refused.

usage: simulate_check.py LTT SOURCE_DIR WORKDIR
"""
import json
import os
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET

ltt, src, work = (os.path.abspath(a) for a in sys.argv[1:4])
shutil.rmtree(work, ignore_errors=True)
os.makedirs(work)
os.chdir(work)
fails = []


def run(*args):
    return subprocess.run([ltt, "simulate", *args], capture_output=True, text=True, timeout=60)


def expect(cond, what, r=None):
    if not cond:
        fails.append(what + ("" if r is None else f"\n  exit {r.returncode}\n  {r.stdout[-800:]}\n  {r.stderr[-800:]}"))


machine = os.path.join(src, "bench", "machines", "h200.json")
r = run("--tp", "8,16,32", "--json", "s.json", "--svg", "s.svg")
expect(r.returncode == 0, "ltt simulate runs", r)
d = json.load(open("s.json"))
expect([t["tp"] for t in d["tp"]] == [8, 16, 32], "one entry per T")
for t in d["tp"]:
    rows = t["rows"]
    expect([x["tokens"] for x in rows] == [2 ** i for i in range(15)], f"T {t['tp']}: M 1..16384 by powers of two")
    for x in rows:
        times = {k: x[f"tier{k}_us"] for k in range(5) if x[f"tier{k}_us"] is not None}
        expect(x["fastest"] == min(times, key=lambda k: (times[k], k)), f"T {t['tp']} M {x['tokens']}: 'fastest' is the least time")
        expect(all(v > 0 for v in times.values()), "times are positive")
    # Tier 0 applies only up to M 128 and within a node (8 GPUs).
    expect(all(x["tier0_us"] is None for x in rows if x["tokens"] > 128 or t["tp"] > 8), f"T {t['tp']}: tier 0 where it cannot run")
    # Every change of the fastest tier between two listed M has its crossover inside that interval (the
    # M where it changes: from the tier fastest at M - 1 to the one fastest at M), and there is no other.
    changes = [(a, b) for a, b in zip(rows, rows[1:]) if a["fastest"] != b["fastest"]]
    cross = t["crossovers"]
    expect(len(cross) == len(changes), f"T {t['tp']}: {len(cross)} crossovers for {len(changes)} changes of the fastest tier")
    for (a, b), c in zip(changes, cross):
        expect(a["tokens"] < c["tokens"] <= b["tokens"] and c["from"] != c["to"],
               f"T {t['tp']}: crossover {c} lies in ({a['tokens']}, {b['tokens']}] and changes the tier")
    # Latency grows with M for every tier (more bytes, more FLOPs).
    for k in range(5):
        seq = [x[f"tier{k}_us"] for x in rows if x[f"tier{k}_us"] is not None]
        expect(all(b >= a for a, b in zip(seq, seq[1:])), f"T {t['tp']} tier {k}: latency does not fall as M grows")
svg = ET.parse("s.svg").getroot()
polylines = [e for e in svg.iter() if e.tag.endswith("polyline")]
expect(len(polylines) >= 3 * 4, f"the SVG draws a line per tier and T ({len(polylines)})")

# The built-in machine is the committed file.
a, b = run("--tp", "8"), run("--tp", "8", "--machine", machine)
strip = lambda s: [l for l in s.splitlines() if not l.startswith("# machine:")]
expect(a.returncode == 0 and strip(a.stdout) == strip(b.stdout), "the built-in machine is bench/machines/h200.json", b)

# What-if: a slower link never speeds a tier up and slows the collective-bound ones.
def at(args, T, M):
    r = run("--tp", str(T), "--tokens", str(M), "--json", "w.json", *args)
    x = json.load(open("w.json"))["tp"][0]["rows"][0]
    return [x[f"tier{k}_us"] for k in range(5)]
base, slow = at([], 8, 2048), at(["--link-GBps", "50"], 8, 2048)
expect(all(s >= b for s, b in zip(slow[1:], base[1:])) and slow[2] > 1.5 * base[2], f"a slower link: {base} -> {slow}")
one_node = at(["--gpus-per-node", "16"], 16, 5)
expect(one_node[0] is not None and at([], 16, 5)[0] is None, "tier 0 at T 16 exists only on a 16-GPU node")
far = at(["--net-GBps", "5"], 16, 2048)
expect(far[1] > at([], 16, 2048)[1], "a slower network slows T 16 across two nodes")

# The collective's algorithm: a one-shot over peer memory pays T-1 reads of the
# whole buffer, so at large M it is slower than the ring; a tree's latency
# grows with log2 T hops, so at M 1 it costs more at T 16 than at T 8.
ring, one = at([], 8, 8192), at(["--collective", "one-shot"], 8, 8192)
t8, t16 = at(["--collective", "tree"], 8, 1), at(["--collective", "tree", "--gpus-per-node", "16"], 16, 1)
expect(one[2] > ring[2] and t16[2] > t8[2], f"collectives: ring {ring[2]}, one-shot {one[2]}; tree at M 1: T 8 {t8[2]}, T 16 {t16[2]}")

# Bad machine files.
open("bad.json", "w").write('{"name": "x"}')
r = run("--machine", "bad.json")
expect(r.returncode == 2 and "lacks the number" in r.stderr, "a machine file without its figures", r)
r = run("--machine", "nope.json")
expect(r.returncode == 2 and "cannot read it" in r.stderr, "a missing machine file", r)
r = run("--tokens", "9..3")
expect(r.returncode == 2 and "runs backwards" in r.stderr, "a backwards range", r)

# Figures no machine has: refused up front (they gave infinite latencies, a
# drawing loop that never ended, and "tier 0 fastest" among infinities).
r = run("--tokens", "1,128", "--tp", "8,16", "--net-GBps", "3e-308", "--gpus-per-node", "1", "--svg", "inf.svg")
expect(r.returncode == 2 and "--net-GBps '3e-308' is out of range" in r.stderr and not os.path.exists("inf.svg"),
       "a what-if rate of 3e-308 GB/s", r)
h200 = json.load(open(machine))


def machine_with(name, **kv):
    m = dict(h200)
    m.update(kv)
    json.dump(m, open(name, "w"))
    return name
for key, val, needle in (("link_GBps", 3e-308, "'link_GBps' is 3e-308: a rate must lie in"),
                         ("gemm_TFLOPs", 3e-308, "'gemm_TFLOPs' is 3e-308"),
                         ("gpus_per_node", 2.5, "'gpus_per_node' must be a whole number"),
                         ("gpus_per_node", 1e30, "'gpus_per_node' must be a whole number"),
                         ("gemm_shard_us", {"896": {"1": -3}}, "'gemm_shard_us' 896 -> '1'"),
                         ("gemm_shard_us", {"x": {"1": 3}}, "'gemm_shard_us' key 'x'")):
    r = run("--machine", machine_with("m.json", **{key: val}), "--svg", "m.svg")
    expect(r.returncode == 2 and needle in r.stderr, f"machine file with {key} = {val}", r)
os.makedirs("adir", exist_ok=True)
r = run("--machine", "adir")
expect(r.returncode == 2 and "is a directory" in r.stderr, "a directory as the machine file", r)
# --check on JSON that is not bench figures: exit 2, not an abort.
for text in ("[1]", "{}", '{"rows": [{"what": "tier1-all", "tp": 8, "tokens": 5, "median_us": 0}]}',
             '{"rows": [{"what": "tier1-all", "tp": 0, "tokens": 5, "median_us": 3}]}'):
    open("b.json", "w").write(text)
    r = run("--check", "b.json")
    expect(r.returncode == 2 and "--check b.json" in r.stderr and "terminate" not in r.stderr, f"--check on {text}", r)
bench8 = os.path.join(src, "bench", "results", "h200-gpu", "bench_T8.json")
r = run("--check", bench8, "--tp", "16")
expect(r.returncode == 2 and "does not take --tp" in r.stderr, "--check with --tp (it would be ignored)", r)
# --fit: inputs never overwritten, bad rows refused, the fitted machine usable.
shutil.copy(bench8, "in8.json")
before = open("in8.json").read()
r = run("--fit", "in8.json", "--machine-out", "in8.json")
expect(r.returncode == 2 and "is one of this run's inputs" in r.stderr and open("in8.json").read() == before,
       "--machine-out over its own --fit input", r)
b = json.load(open("in8.json"))
for row in b["rows"]:
    if row["what"] == "gemm-shard":
        row["tp"] = 0
json.dump(b, open("tp0.json", "w"))
for fit in ("tp0.json", "in8.json,tp0.json"):
    r = run("--fit", fit, "--machine-out", "fo.json")
    expect(r.returncode == 2 and "--fit tp0.json: not ltt bench figures: a gemm-shard row has tp 0" in r.stderr
           and not os.path.exists("fo.json"), f"--fit {fit}: a gemm-shard row at T 0", r)
r = run("--fit", "in8.json,", "--machine-out", "fo.json")
expect(r.returncode == 2 and "--fit 'in8.json,': item 2 is empty" in r.stderr, "--fit with an empty name", r)
r = run("--fit", "in8.json,in8.json", "--machine-out", "fo.json")
expect(r.returncode == 2 and "in8.json is given twice" in r.stderr and not os.path.exists("fo.json"),
       "--fit with a file twice (its GEMMs would count twice)", r)
r = run("--fit", "in8.json", "--machine-out", "fo.json", "--json", "x.json")
expect(r.returncode == 2 and "does not take --json" in r.stderr, "--fit with --json (it would be ignored)", r)
r = run("--machine-out", "fo.json")
expect(r.returncode == 2 and "give --fit" in r.stderr and not os.path.exists("fo.json"), "--machine-out without --fit", r)
r = run("--fit", "in8.json", "--machine-out", "fo.json")
r2 = run("--machine", "fo.json", "--tp", "8", "--tokens", "1,128")
expect(r.returncode == 0 and r2.returncode == 0, "a fitted machine file loads", r2)

for f in fails:
    print("FAILED:", f)
print(f"simulate: {'all' if not fails else len(fails)} {'checks passed' if not fails else 'checks failed'}")
sys.exit(1 if fails else 0)
