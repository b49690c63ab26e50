#!/usr/bin/env python3
"""The HTML report in a real headless browser (Debian's chromium): every page
loads with no script error, every case's figures are there, and a bug at a
shard edge shows its wrong columns where the edge is.

usage: html_check.py LTT SOURCE_DIR WORKDIR   (exit 77: no chromium here, skipped)
"""
import os
import re
import shutil
import struct
import subprocess
import sys

ltt, src, work = (os.path.abspath(a) for a in sys.argv[1:4])
browser = shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")
if not browser:
    print("SKIPPED: no chromium (apt-get install chromium; scripts/setup.sh does)")
    sys.exit(77)
shutil.rmtree(work, ignore_errors=True)
os.makedirs(work)
os.chdir(work)
fails = []


def expect(cond, what):
    if not cond:
        fails.append(what)


def dom(page):
    r = subprocess.run([browser, "--headless", "--no-sandbox", "--disable-gpu", "--virtual-time-budget=10000",
                        "--dump-dom", "file://" + os.path.abspath(page)], capture_output=True, text=True, timeout=120)
    return r.stdout


def canvases(d):
    """(id, attributes) of every canvas."""
    return [(m.group(1), m.group(0)) for m in re.finditer(r"<canvas id=\"([^\"]+)\"[^>]*>", d)]


def hot(d, cid):
    m = re.search(r"<canvas id=\"" + re.escape(cid) + r"\"[^>]*data-hot-cols=\"([^\"]*)\"", d)
    return m.group(1) if m else None


small = ["--dims", "small", "--tp", "8", "--dist", "realistic"]
# 1. Two columns swapped across the first shard edge (H 256, T 8: shards of 32): the stripe is at columns 31-32.
subprocess.run([ltt, "check", *small, "--tokens", "33", "--tier", "2", "--mutant", "swap-shard-edge", "--html", "edge.html"],
               capture_output=True)
d = dom("edge.html")
expect('data-ready="1"' in d and 'data-js-error="' not in d, "the page loads with no script error")
cs = canvases(d)
expect(len(cs) >= 2 and all('data-drawn="1"' in a for _, a in cs), f"every heatmap drawn: {cs}")
expect(hot(d, "steps-0") == "31-32", f"the distance map's hot columns are the shard edge's: {hot(d, 'steps-0')}")
# 2. The last rank up-projects shard 0's rows: its whole shard, columns 224-255, is wrong.
subprocess.run([ltt, "check", *small, "--tokens", "5,33", "--tier", "0,2", "--plant", "shard-off-by-one", "--html", "shard.html"],
               capture_output=True)
d = dom("shard.html")
rows = re.findall(r"<tr class=\"(pass|FAIL)\">", d)
expect(len(rows) == 4 and rows.count("FAIL") == 4, f"the summary has every case: {rows}")
for i in range(4):
    expect(hot(d, f"steps-{i}") == "224-255", f"case {i}: the wrong columns are the last shard: {hot(d, f'steps-{i}')}")
    expect(f"id=\"case-{i}\"" in d and "reproduce:" in d and "ULP:" in d, f"case {i}: section, histogram and reproduce line")
# 3. A passing run: the summary, no heatmap unless --html-all.
subprocess.run([ltt, "check", *small, "--tokens", "5", "--tier", "1", "--html", "pass.html"], capture_output=True)
d = dom("pass.html")
expect("ltt check: pass" in d and not canvases(d), "a passing run's page has the table and no heatmap")
subprocess.run([ltt, "check", *small, "--tokens", "5", "--tier", "1", "--html", "all.html", "--html-all"], capture_output=True)
d = dom("all.html")
expect(len(canvases(d)) == 2 and hot(d, "steps-0") == "", "--html-all draws passing cases too, nothing hot")
# 4. Ranks that differ: a third map, where the differing rank differs.
subprocess.run([ltt, "check", *small, "--tokens", "5", "--tier", "1", "--plant", "rank-differs", "--html", "rank.html"],
               capture_output=True)
d = dom("rank.html")
expect(hot(d, "rank-0") == "128-128", f"the rank map marks the one element's column: {hot(d, 'rank-0')}")
# 5. verify and regress write pages too.
subprocess.run([ltt, "golden", "--out", "g", *small, "--tokens", "5", "--tier", "1"], capture_output=True)
r = subprocess.run([ltt, "regress", "g", "--html", "regress.html"], capture_output=True, text=True)
d = dom("regress.html")
expect(r.returncode == 0 and "ltt regress: pass" in d and "same" in d, "regress --html")
case = [os.path.join("g", f) for f in os.listdir("g") if f.endswith(".safetensors")][0]
r = subprocess.run([ltt, "verify", "--case", case, "--output", case, "--html", "verify.html"], capture_output=True, text=True)
expect(r.returncode == 2 and "no output to verify" in r.stderr, "verify refuses a case as its own output")
# 6. verify's pages: the case's expected output passes; the same with columns
#    64-95 (the third shard of H 256 at T 8) scaled by 3% fails there.
sys.path.insert(0, os.path.join(src, "tests"))
import stfile  # noqa: E402
tensors, meta = stfile.read(case)
dtype, shape, exp = tensors["expected.tier1"]
stfile.write("good.safetensors", {"output.tier1.rank0": (dtype, shape, exp)})
r = subprocess.run([ltt, "verify", "--case", case, "--output", "good.safetensors", "--html", "vgood.html", "--html-all"],
                   capture_output=True, text=True)
d = dom("vgood.html")
expect(r.returncode == 0 and "ltt verify: pass" in d and 'data-js-error="' not in d and hot(d, "steps-0") == "",
       f"verify --html-all of a correct output: a passing page, nothing hot (exit {r.returncode}, {hot(d, 'steps-0')})")
H = shape[1]
bad = bytearray(exp)
for i in range(shape[0]):
    for j in range(64, 96):
        k = 2 * (i * H + j)
        f = struct.unpack("<f", b"\0\0" + bytes(bad[k:k + 2]))[0] * 1.03
        bad[k:k + 2] = struct.pack("<f", f)[2:]  # truncated: a 3% move is many bf16 steps either way
stfile.write("bad.safetensors", {"output.tier1.rank0": (dtype, shape, bytes(bad))})
r = subprocess.run([ltt, "verify", "--case", case, "--output", "bad.safetensors", "--html", "vbad.html"],
                   capture_output=True, text=True)
d = dom("vbad.html")
expect(r.returncode == 1 and "ltt verify: FAIL" in d and hot(d, "steps-0") == "64-95" and "reproduce:" in d,
       f"verify --html of a wrong shard: FAIL, its columns hot (exit {r.returncode}, {hot(d, 'steps-0')})")

# 7. Found by the fifty-first session's review. (a) Where H is no multiple of the map's 512 cells, a cell's
#    hidden columns start at ceil(j H / cols): H 768 at T 8 swaps columns 95 and 96 (the shard edge), which
#    fall in cells 63 and 64, whose columns are 95 and 96-97 (the page said 94-97).
subprocess.run([ltt, "check", "--dims", "768,384", "--tp", "8", "--tokens", "5", "--dist", "realistic", "--tier", "2",
                "--mutant", "swap-shard-edge", "--html", "edge768.html"], capture_output=True)
d = dom("edge768.html")
expect(hot(d, "steps-0") == "95-97", f"H 768: the hot columns are the cells' own: {hot(d, 'steps-0')}")
# (b) --html-all's legend says every case has maps; a failing case's farthest element past the 20 listed is shown.
subprocess.run([ltt, "check", *small, "--tokens", "5", "--tier", "1,2", "--mutant", "tier1-own-s", "--html", "all.html",
                "--html-all"], capture_output=True)
page = open("all.html").read()
expect("Heatmaps below for every case" in page and "for each failing case" not in page, "--html-all: the legend says every case")
r = subprocess.run([ltt, "check", *small, "--tokens", "5", "--tier", "1", "--mutant", "tier1-own-s", "--html", "far.html"],
                   capture_output=True, text=True)
far = [x.split("farthest: ", 1)[1] for x in r.stdout.splitlines() if "#     farthest: " in x]
page = open("far.html").read()
expect(len(far) == 1 and "<p>farthest: <code>" + far[0].replace("<", "&lt;").replace(">", "&gt;") in page,
       f"the farthest element the terminal shows is on the page: {far}")

for f in fails:
    print("FAILED:", f)
print(f"html: {'all checks passed' if not fails else f'{len(fails)} failed'}")
sys.exit(1 if fails else 0)
