#!/usr/bin/env python3
"""A golden folder is consistent at every instant (issue 8, item 3):

a. `golden --eps 1e-5` and `--tier 2` into a folder holding the default set
   keep the default file byte for byte and add distinct files named by what
   differs (_eps1e-05, _tiers2); the manifest lists them all; regress passes;
b. a manifest entry of the same name whose metadata differ from what would be
   written is refused (exit 2, naming the file and the key) before anything
   is written: the file and the manifest are untouched;
c. SIGTERM and SIGINT while golden writes (and while regress writes its
   hash-only temporary) leave no temporary, the process dies by that signal,
   every case file present is listed with its true SHA-256 and bytes, and
   regress passes on the folder;
d. manifest.json is valid JSON, and lists only files present, at every
   observation during a run;
e. (a review acting as a new user) a set another run holds is refused, never
   rewritten from a stale manifest; a file cut short is that set's drift and
   the other sets are still regressed; a hash-only set's file present on disk
   is checked; a renamed file is drift; a malformed or incomplete entry, a
   FIFO and a full standard output are refused (exit 2);
f. a SIGKILLed run's temporaries are removed by the next golden into the set;
g. (found by the forty-ninth session, mended in the fiftieth) a manifest
   entry naming manifest.json, and a manifest lacking ltt_version or with one
   that is not a string, are refused (exit 2); golden where a listed case
   name is a directory is refused before its table starts; regress judges a
   case file that is a link by its target's bytes;
h. (found by the fifty-second session's review) drifted inputs are named
   before the expected outputs they move; a set written by another ltt
   version regresses the same bits, said; a metadata difference names its
   key; a file golden did not write is never adopted through a hash-only
   entry nor replaced because of one; unlisted case files are said; an
   entry's bad metadata is refused before any set is regenerated, by golden
   too; a hash-only entry's metadata are compared with its set's.

usage: golden_faults.py LTT WORKDIR
"""
import hashlib
import json
import os
import shutil
import signal
import struct
import subprocess
import sys
import time

ltt, work = sys.argv[1], sys.argv[2]
shutil.rmtree(work, ignore_errors=True)
os.makedirs(work)
SET = ["--dims", "small", "--tp", "8", "--tokens", "5", "--dist", "realistic"]
DEFAULT = "H256_L128_T8_M5_realistic_seed0_one-shot_declared.safetensors"
passed = 0


def run(*args):
    return subprocess.run([ltt, *args], capture_output=True, text=True)


def golden(out, *extra):
    return run("golden", "--out", out, *SET, *extra)


def regress_ok(d):
    r = run("regress", d)
    assert r.returncode == 0 and "Drifted sets : 0 OK" in r.stdout, r.stdout + r.stderr
    return r


def manifest(d):
    with open(os.path.join(d, "manifest.json")) as f:
        return json.load(f)


def read(path):
    with open(path, "rb") as f:
        return f.read()


def temporaries(d):
    return [f for f in os.listdir(d) if ".tmp" in f or ".hash." in f or ".regress." in f]


def case_files(d):
    return sorted(f for f in os.listdir(d) if f.endswith(".safetensors") and not f.startswith("."))


def all_listed_and_true(d):
    """Every case file present is listed, with its true SHA-256 and size; every listed whole file is present."""
    m = {e["file"]: e for e in manifest(d)["files"]}
    for f in case_files(d):
        assert f in m, f"{f} is in {d} but not in its manifest"
        raw = read(os.path.join(d, f))
        assert m[f]["sha256"] == hashlib.sha256(raw).hexdigest() and m[f]["bytes"] == len(raw), f
    for f, e in m.items():
        assert not e["committed"] or os.path.exists(os.path.join(d, f)), f"{f} is listed but absent"
    return len(m)


# a. Other eps, other tiers: new names, the default file untouched.
a = os.path.join(work, "a")
r = golden(a)
assert r.returncode == 0, r.stdout + r.stderr
before = read(os.path.join(a, DEFAULT))
for extra in (["--eps", "1e-5"], ["--tier", "2"], ["--eps", "1e-5", "--tier", "1,3"]):
    r = golden(a, *extra)
    assert r.returncode == 0, r.stdout + r.stderr
assert read(os.path.join(a, DEFAULT)) == before, "the default file changed"
stem = DEFAULT[:-len(".safetensors")]
want = sorted([DEFAULT, stem + "_eps1e-05.safetensors", stem + "_tiers2.safetensors",
               stem + "_eps1e-05_tiers13.safetensors"])
assert case_files(a) == want, case_files(a)
m = {e["file"]: e for e in manifest(a)["files"]}
assert sorted(m) == want, sorted(m)
assert m[DEFAULT]["metadata"]["tiers"] == "0,1,2,3,4"
assert m[stem + "_eps1e-05.safetensors"]["metadata"]["tiers"] == "0,1,2,3,4"
assert float(m[stem + "_eps1e-05.safetensors"]["metadata"]["eps"]) == 1e-5
assert m[stem + "_tiers2.safetensors"]["metadata"]["tiers"] == "2"
assert m[stem + "_eps1e-05_tiers13.safetensors"]["metadata"]["tiers"] == "1,3"
assert len({e["sha256"] for e in m.values()}) == 4, "two names hold the same contents"
assert all_listed_and_true(a) == 4
r = golden(a)  # the default run again: same name, same metadata, same bytes
assert r.returncode == 0 and read(os.path.join(a, DEFAULT)) == before, r.stdout + r.stderr
regress_ok(a)
print(f"a. 4 names, default file byte-identical ({len(before)} bytes), regress: 4 sets, 0 drifted")
passed += 1

# b. A hand-edited entry that clashes with a file to be written is refused.
b = os.path.join(work, "b")
shutil.copytree(a, b)
m = manifest(b)
for e in m["files"]:
    if e["file"] == DEFAULT:
        e["metadata"]["tiers"] = "1"
text = json.dumps(m, indent=2)
with open(os.path.join(b, "manifest.json"), "w") as f:
    f.write(text)
stat = os.stat(os.path.join(b, DEFAULT))
r = run("golden", "--out", b, "--dims", "small", "--tp", "8", "--tokens", "1,5", "--dist", "realistic")
assert r.returncode == 2, r.stdout + r.stderr
assert DEFAULT in r.stderr and "tiers" in r.stderr, r.stderr
clash = r.stderr.strip().splitlines()[-1]
assert read(os.path.join(b, DEFAULT)) == before and os.stat(os.path.join(b, DEFAULT)).st_mtime_ns == stat.st_mtime_ns
assert read(os.path.join(b, "manifest.json")).decode() == text, "the manifest changed"
assert case_files(b) == want and not temporaries(b), os.listdir(b)  # nothing written, not even M 1
# Whole file listed, --hash-only would drop it to a hash: refused too.
r = golden(a, "--hash-only")
assert r.returncode == 2 and "committed" in r.stderr, r.stdout + r.stderr
print("b. clashes refused with exit 2, file and manifest untouched:", clash[clash.index(DEFAULT):][:150], "...")
passed += 1


# c, d. Killed while writing.
def watch(proc, d, until):
    """Polls d until until(d) or proc ends; every manifest seen must parse and list only present files."""
    seen = 0
    while proc.poll() is None and not until(d):
        try:
            with open(os.path.join(d, "manifest.json")) as f:
                text = f.read()
        except FileNotFoundError:
            time.sleep(0.002)
            continue
        listed = [e["file"] for e in json.loads(text)["files"] if e["committed"]]  # raises if not valid JSON
        missing = [f for f in listed if not os.path.exists(os.path.join(d, f))]
        assert not missing, f"listed but absent: {missing}"
        seen += 1
        time.sleep(0.002)
    return seen


def child():
    signal.signal(signal.SIGINT, signal.SIG_DFL)  # a shell may have left SIGINT ignored


observations = 0
for sig, landed in ((signal.SIGTERM, 1), (signal.SIGINT, 3)):
    # The clean-up of a temporary is what is tested: a kill that lands
    # between files proves less, so such a run is repeated (5 at most).
    for attempt in range(5):
        c = os.path.join(work, f"c_{sig.name}_{attempt}")
        os.makedirs(c)
        p = subprocess.Popen([ltt, "golden", "--out", c, "--dims", "small", "--tp", "8,16", "--tokens", "1,5,33,129",
                              "--dist", "all"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, preexec_fn=child)
        observations += watch(p, c, lambda d: len(case_files(d)) >= landed)
        # Kill while a temporary exists if one shows within a second, else at once.
        t = time.time()
        while p.poll() is None and not temporaries(c) and time.time() - t < 1.0:
            time.sleep(0.0005)
        caught = bool(temporaries(c))
        p.send_signal(sig)
        p.wait(timeout=60)
        assert p.returncode == -sig, f"{sig.name}: exit {p.returncode}: {p.stderr.read()}"
        assert not temporaries(c), os.listdir(c)
        n = all_listed_and_true(c)
        assert n >= landed and n < 24, n
        r = regress_ok(c)
        print(f"c. {sig.name}: killed {'with a temporary present' if caught else 'between files'}, "
              f"{n} of 24 sets listed with their true SHA-256, none unlisted, no temporary; regress 0 drifted")
        if caught:
            break
    assert caught, f"{sig.name}: no kill of 5 landed while a temporary existed"
    passed += 1

# Hash-only sets are hashed in memory: neither golden --hash-only nor regress
# writes anything but the manifest into the directory (a read-only checkout
# regresses), and regress ended by a signal leaves nothing behind.
h = os.path.join(work, "h")
os.makedirs(h)
seen = set()
p = subprocess.Popen([ltt, "golden", "--out", h, "--dims", "small", "--tp", "8,16", "--tokens", "1,5,33,129", "--dist", "all",
                      "--hash-only"], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
while p.poll() is None:
    seen |= set(os.listdir(h))
    time.sleep(0.0005)
out, err = p.communicate()
assert p.returncode == 0, out.decode() + err.decode()
assert os.listdir(h) == ["manifest.json"] and seen <= {"manifest.json"} | {f for f in seen if f.startswith(".manifest.json.tmp.")}, seen
before = sorted(os.listdir(h))
seen = set()
p = subprocess.Popen([ltt, "regress", h], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
while p.poll() is None:
    seen |= set(os.listdir(h))
    time.sleep(0.0005)
out, err = p.communicate()
assert p.returncode == 0 and b"Drifted sets : 0 OK" in out, out.decode() + err.decode()
assert seen == set(before) and sorted(os.listdir(h)) == before, seen
for sig in (signal.SIGTERM, signal.SIGINT):
    p = subprocess.Popen([ltt, "regress", h], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, preexec_fn=child)
    time.sleep(0.1)
    p.send_signal(sig)
    p.wait(timeout=60)
    assert p.returncode == -sig, f"regress {sig.name}: exit {p.returncode}: {p.stderr.read()}"
    assert sorted(os.listdir(h)) == before, os.listdir(h)
    print(f"c. regress {sig.name}: killed, nothing left behind")
    passed += 1
print(f"c. golden --hash-only and regress: only the manifest ever in the directory ({len(seen)} name(s) seen while they ran)")
passed += 1

# d. A whole run observed: the manifest parses every time.
d = os.path.join(work, "d")
os.makedirs(d)
p = subprocess.Popen([ltt, "golden", "--out", d, "--dims", "small", "--tp", "8,16", "--tokens", "1,5,33",
                      "--dist", "realistic,adversarial"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
observations += watch(p, d, lambda _: False)
assert p.wait(timeout=300) == 0, p.stderr.read()
assert all_listed_and_true(d) == 12 and not temporaries(d)
assert observations >= 3, observations
print(f"d. manifest.json valid JSON, listing only present files, at all {observations} observations")
passed += 1

# e. Found by a review acting as a new user.
import fcntl  # noqa: E402
e = os.path.join(work, "e")
os.makedirs(e)
fd = os.open(e, os.O_RDONLY)
fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)  # another golden run's hold on the set
r = golden(e)
assert r.returncode == 2 and "another ltt golden or regress run is using this set now" in r.stderr, r.stdout + r.stderr
assert not os.path.exists(os.path.join(e, "manifest.json")), os.listdir(e)
os.close(fd)
r = run("golden", "--out", e, "--dims", "small", "--tp", "8", "--tokens", "1,5", "--dist", "realistic,adversarial")
assert r.returncode == 0, r.stdout + r.stderr
# regress beside another regress (a shared hold) runs; beside a golden run (exclusive) it is refused.
fd = os.open(e, os.O_RDONLY)
fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
r = run("regress", e)
assert r.returncode == 0 and "Drifted sets : 0 OK" in r.stdout, r.stdout + r.stderr
fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
r = run("regress", e)
assert r.returncode == 2 and "another ltt golden run is using this set now" in r.stderr, r.stdout + r.stderr
os.close(fd)
files = case_files(e)
assert len(files) == 4, files
# A file cut short and another's bit flipped: both named, one exit 1.
with open(os.path.join(e, files[0]), "r+b") as f:
    f.truncate(1000)
raw = bytearray(read(os.path.join(e, files[1])))
raw[-3] ^= 1
open(os.path.join(e, files[1]), "wb").write(bytes(raw))
r = run("regress", e)
assert r.returncode == 1 and f"DRIFT {files[0]}: the file has 1000 bytes" in r.stdout and f"DRIFT {files[1]}:" in r.stdout \
    and "Drifted sets : 2 FAILED" in r.stdout, r.stdout + r.stderr
# A missing file is its set's ERROR (exit 2 where nothing drifted); the other sets are still regressed.
os.rename(os.path.join(e, files[0]), os.path.join(work, "aside"))
r = run("regress", e)
assert r.returncode == 1 and f"ERROR {files[0]}:" in r.stdout and f"DRIFT {files[1]}:" in r.stdout, r.stdout + r.stderr
os.rename(os.path.join(e, files[1]), os.path.join(work, "aside2"))  # nothing drifts now: ERRORs alone, and no "OK" beside them
r = run("regress", e)
assert r.returncode == 2 and f"ERROR {files[1]}:" in r.stdout and "# Drifted sets : 0\n" in r.stdout \
    and "Unreadable sets : 2 FAILED" in r.stdout, r.stdout + r.stderr
os.rename(os.path.join(work, "aside2"), os.path.join(e, files[1]))
os.rename(os.path.join(work, "aside"), os.path.join(e, files[0]))
print("e. a second golden into a held set refused, regress beside regress runs; a file cut short is its set's drift, "
      "a missing one its ERROR, the others still regressed")
passed += 1
# A hash-only entry whose file is present and differs: drift, not a silent pass.
m = manifest(e)
m["files"][1]["committed"] = False
json.dump(m, open(os.path.join(e, "manifest.json"), "w"))
r = run("regress", e)
assert r.returncode == 1 and "a file of this hash-only set's name is present and its SHA-256" in r.stdout, r.stdout + r.stderr
# Renamed: that set's drift; malformed, incomplete: exit 2 naming what.
g = os.path.join(work, "g")
assert golden(g).returncode == 0
good = manifest(g)


def regress_refuses(edit, needle):
    m = json.loads(json.dumps(good))
    edit(m["files"][0])
    json.dump(m, open(os.path.join(g, "manifest.json"), "w"))
    r = run("regress", g)
    assert r.returncode == 2 and needle in r.stderr, (needle, r.stdout + r.stderr)


seed1 = DEFAULT.replace("seed0", "seed1")
m = json.loads(json.dumps(good))
m["files"][0]["file"] = seed1
json.dump(m, open(os.path.join(g, "manifest.json"), "w"))
os.rename(os.path.join(g, DEFAULT), os.path.join(g, seed1))
r = run("regress", g)
os.rename(os.path.join(g, seed1), os.path.join(g, DEFAULT))
assert r.returncode == 1 and f"DRIFT {seed1}: its metadata name the file {DEFAULT}" in r.stdout, r.stdout + r.stderr
regress_refuses(lambda x: x.update(sha256="abc"), "sha256 'abc' is not 64 lowercase hex digits")
regress_refuses(lambda x: x.update(sha256=x["sha256"].upper()), "is not 64 lowercase hex digits")
regress_refuses(lambda x: x.pop("bytes"), f"entry 0 ({DEFAULT}) lacks bytes (ltt golden writes")
# An entry lacking keys is named by its place and what it lacks, and a wrong
# value is quoted in part: the whole entry (a 1 MB string in it) made a 1 MB message.
regress_refuses(lambda x: (x.pop("sha256"), x.pop("committed")), f"entry 0 ({DEFAULT}) lacks sha256, committed")
for key, value in (("bytes", None), ("committed", "z" * 1000000)):
    m = json.loads(json.dumps(good))
    m["files"][0]["metadata"]["note"] = "y" * 1000000
    if value is None:
        m["files"][0].pop(key)
    else:
        m["files"][0][key] = value
    json.dump(m, open(os.path.join(g, "manifest.json"), "w"))
    r = run("regress", g)
    assert r.returncode == 2 and (f"lacks {key}" if value is None else '\'committed\' is "zzz') in r.stderr \
        and len(r.stderr) < 2000, r.stderr[:3000]
regress_refuses(lambda x: x.update(note="mine"), "unknown key 'note'")
regress_refuses(lambda x: x["metadata"].pop("eps"), "has no 'eps'")
json.dump(good, open(os.path.join(g, "manifest.json"), "w"))
regress_ok(g)
# A FIFO where the case file should be: refused at once, never waited on.
os.rename(os.path.join(g, DEFAULT), os.path.join(g, "keep"))
os.mkfifo(os.path.join(g, DEFAULT))
t0 = time.time()
r = subprocess.run([ltt, "regress", g], capture_output=True, text=True, timeout=60)
assert r.returncode == 2 and "is a FIFO" in r.stdout and "could not be read" in r.stderr and time.time() - t0 < 30, r.stdout + r.stderr
os.remove(os.path.join(g, DEFAULT))
os.rename(os.path.join(g, "keep"), os.path.join(g, DEFAULT))
# The table written nowhere is no pass.
with open("/dev/full", "w") as full:
    r = subprocess.run([ltt, "regress", g], stdout=full, stderr=subprocess.PIPE, text=True)
assert r.returncode == 2 and "cannot write standard output" in r.stderr, r.stderr
print("e. a hash-only set's file checked; a renamed file drift; malformed and incomplete entries, a FIFO, a full stdout: exit 2")
passed += 1
# A run killed by SIGKILL removes nothing: its temporaries are found by the next golden into the
# set (under the set's lock, no other run writes there), removed and said; other files are kept.
k = os.path.join(work, "k")
golden(k)
left = [".x.safetensors.tmp.4194000", ".manifest.json.tmp.77"]  # the names golden's temporaries take
keep = ["notes.tmp.5", ".x.safetensors.tmp.a", "data.safetensors.tmp.12", "manifest.json.tmp.78"]
for f in left + keep:
    open(os.path.join(k, f), "w").write("left")
r = run("golden", "--out", k, "--dims", "small", "--tp", "8", "--tokens", "33", "--dist", "realistic")
assert r.returncode == 0 and "removed 2 temporary file(s) that a killed run left" in r.stderr, r.stdout + r.stderr
assert not any(os.path.exists(os.path.join(k, f)) for f in left) and all(os.path.exists(os.path.join(k, f)) for f in keep), os.listdir(k)
print("f. a SIGKILLed run's temporaries removed by the next golden into the set, and said; other files kept")
passed += 1
# g. Found by the forty-ninth session. An entry naming the manifest itself was read as a case file (drift, exit 1).
regress_refuses(lambda x: x.update(file="manifest.json"), "entry 0 (manifest.json) is the manifest itself, not a case file")
# A manifest without ltt_version, or with a number there, was accepted; golden writes the version string.
for edit, needle in ((lambda m: m.pop("ltt_version"), "it lacks ltt_version"), (lambda m: m.update(ltt_version=5), "'ltt_version' is 5"),
                     (lambda m: m.update(ltt_version=""), "'ltt_version' is \"\"")):
    m = json.loads(json.dumps(good))
    edit(m)
    json.dump(m, open(os.path.join(g, "manifest.json"), "w"))
    for args in (("regress", g), ("golden", "--out", g, *SET)):
        r = run(*args)
        assert r.returncode == 2 and needle in r.stderr, (args, needle, r.stdout + r.stderr)
json.dump(good, open(os.path.join(g, "manifest.json"), "w"))
regress_ok(g)
# A listed case name that is a directory: refused before the table starts (it was refused at the rename, the
# header printed); the directory is kept.
os.rename(os.path.join(g, DEFAULT), os.path.join(work, "kept"))
os.mkdir(os.path.join(g, DEFAULT))
r = golden(g)
assert r.returncode == 2 and f"{DEFAULT} is a directory: golden writes the set's file of that name there" in r.stderr \
    and "# ltt golden" not in r.stdout and os.path.isdir(os.path.join(g, DEFAULT)), r.stdout + r.stderr
os.rmdir(os.path.join(g, DEFAULT))
# A case file that is a link is read through it: its target's bytes are judged (git-annex keeps files as links).
os.symlink(os.path.abspath(os.path.join(work, "kept")), os.path.join(g, DEFAULT))
regress_ok(g)
raw = bytearray(read(os.path.join(work, "kept")))
raw[-1] ^= 1
open(os.path.join(work, "flipped"), "wb").write(raw)
os.remove(os.path.join(g, DEFAULT))
os.symlink(os.path.abspath(os.path.join(work, "flipped")), os.path.join(g, DEFAULT))
r = run("regress", g)
assert r.returncode == 1 and f"DRIFT {DEFAULT}" in r.stdout, r.stdout + r.stderr
print("g. an entry naming the manifest, a manifest lacking ltt_version or with a number there: exit 2; a listed name that "
      "is a directory: refused before the table; a case file that is a link: its target judged")
passed += 1

# h. Found by the fifty-second session's review of golden and regress.
def header(path):
    raw = read(path)
    (n,) = struct.unpack_from("<Q", raw, 0)
    return json.loads(raw[8:8 + n]), raw[8 + n:]


def rewrite(path, edit):
    """The case file with its header's __metadata__ edited; returns its new SHA-256 and size."""
    head, body = header(path)
    edit(head["__metadata__"])
    text = json.dumps(head, separators=(",", ":")).encode()
    text += b" " * (-len(text) % 8)
    data = struct.pack("<Q", len(text)) + text + body
    open(path, "wb").write(data)
    return hashlib.sha256(data).hexdigest(), len(data)


h = os.path.join(work, "s52")
# (1) Inputs that drifted are named, not the expected output they move: a seed-1 file labelled seed 0 throughout.
assert run("golden", "--out", h, "--dims", "small", "--tp", "8", "--tokens", "5", "--dist", "realistic", "--seed", "1").returncode == 0
m = manifest(h)
seed1 = m["files"][0]["file"]
os.rename(os.path.join(h, seed1), os.path.join(h, DEFAULT))
sha, size = rewrite(os.path.join(h, DEFAULT), lambda md: md.update(seed="0"))
m["files"][0].update(file=DEFAULT, sha256=sha, bytes=size)
m["files"][0]["metadata"]["seed"] = "0"
json.dump(m, open(os.path.join(h, "manifest.json"), "w"))
r = run("regress", h)
line = [x for x in r.stdout.splitlines() if x.startswith(f"#   DRIFT {DEFAULT}")]
assert r.returncode == 1 and line and "the input generator drifted" in line[0] and "expected" not in line[0], r.stdout + r.stderr
# (2) The version that wrote a set is its provenance: an older ltt_version, file and entry alike, regresses the
# same bits, and is said; the entry's version against the file's is drift, named by its key.
shutil.rmtree(h)
assert golden(h).returncode == 0
version = header(os.path.join(h, DEFAULT))[0]["__metadata__"]["ltt_version"]
sha, size = rewrite(os.path.join(h, DEFAULT), lambda md: md.update(ltt_version="0.0.1-old"))
m = manifest(h)
m["files"][0].update(sha256=sha, bytes=size)
m["files"][0]["metadata"]["ltt_version"] = "0.0.1-old"
json.dump(m, open(os.path.join(h, "manifest.json"), "w"))
r = regress_ok(h)
assert f"sets written by ltt 0.0.1-old (this is {version}) were regenerated under their own version string" in r.stdout, r.stdout
m["files"][0]["metadata"]["ltt_version"] = version
json.dump(m, open(os.path.join(h, "manifest.json"), "w"))
r = run("regress", h)
assert r.returncode == 1 and "'ltt_version' is '0.0.1-old' regenerated, '" + version + "' in the manifest" in r.stdout, r.stdout + r.stderr
# A key the file's header holds and the regenerated one does not is named, not "__metadata__ differs".
shutil.rmtree(h)
assert golden(h).returncode == 0
sha, size = rewrite(os.path.join(h, DEFAULT), lambda md: md.update(note="mine"))
m = manifest(h)
m["files"][0].update(sha256=sha, bytes=size)
json.dump(m, open(os.path.join(h, "manifest.json"), "w"))
r = run("regress", h)
assert r.returncode == 1 and "__metadata__ 'note' is none regenerated, 'mine' in the file" in r.stdout, r.stdout + r.stderr
print("h1. drifted inputs named before the outputs they move; an older ltt_version regresses the same bits, and is said; "
      "a metadata difference names its key")
passed += 1
# (3) A file golden did not write is never adopted through a hash-only entry, nor replaced because of one.
hj = os.path.join(work, "hj")
os.makedirs(hj)
open(os.path.join(hj, DEFAULT), "w").write("my outputs")
r = golden(hj, "--hash-only")
assert r.returncode == 2 and "under --hash-only nothing is written, yet regress would judge that file as the set" in r.stderr \
    and not os.path.exists(os.path.join(hj, "manifest.json")), r.stdout + r.stderr
os.rename(os.path.join(hj, DEFAULT), os.path.join(work, "mine"))
r = golden(hj, "--hash-only")
# nothing landed: the closing line says how the set is listed, not "as it landed"
assert r.returncode == 0 and "by its hash (no case file written)" in r.stdout and "landed" not in r.stdout, r.stdout + r.stderr
os.rename(os.path.join(work, "mine"), os.path.join(hj, DEFAULT))
r = golden(hj)
assert r.returncode == 2 and "lists its name as a hash-only set whose SHA-256 is not the file's" in r.stderr \
    and read(os.path.join(hj, DEFAULT)) == b"my outputs", r.stdout + r.stderr
# The control: the set's own bytes under a hash-only entry are the set, and a plain golden makes it committed.
shutil.copy(os.path.join(work, "kept"), os.path.join(hj, DEFAULT))
assert manifest(hj)["files"][0]["sha256"] == hashlib.sha256(read(os.path.join(hj, DEFAULT))).hexdigest()
r = golden(hj)
assert r.returncode == 0 and manifest(hj)["files"][0]["committed"] is True, r.stdout + r.stderr
regress_ok(hj)
print("h2. a foreign file under a set's name refused by golden --hash-only, and by golden over a hash-only entry; "
      "the set's own bytes there are taken")
passed += 1
# (4) Case files the manifest does not list are said (never regressed), the run still judged on the listed ones.
open(os.path.join(hj, "H256_L128_T9_M1_realistic_seed0_one-shot_declared.safetensors"), "w").write("junk")
r = regress_ok(hj)
assert "1 case file here is not in the manifest, so not regressed (ltt golden lists every file it writes): " \
       "H256_L128_T9_M1_realistic_seed0_one-shot_declared.safetensors" in r.stdout, r.stdout
# (5) An entry whose metadata hold a bad value is refused before any set is regenerated, by golden too.
mm = os.path.join(work, "mm")
assert run("golden", "--out", mm, "--dims", "small", "--tp", "8", "--tokens", "1,5", "--dist", "exact").returncode == 0
m = manifest(mm)
m["files"][-1]["metadata"]["tp"] = 8
json.dump(m, open(os.path.join(mm, "manifest.json"), "w"))
for args in (("regress", mm), ("golden", "--out", mm, "--dims", "small", "--tp", "8", "--tokens", "33", "--dist", "exact")):
    r = run(*args)
    assert r.returncode == 2 and "metadata 'tp' is 8: every value is a string" in r.stderr and "# ltt" not in r.stdout, \
        (args, r.stdout + r.stderr)
m["files"][-1]["metadata"]["tp"] = "7"
json.dump(m, open(os.path.join(mm, "manifest.json"), "w"))
r = run("regress", mm)
assert r.returncode == 2 and "'s metadata: the metadata describe an impossible case" in r.stderr and "# ltt" not in r.stdout, \
    r.stdout + r.stderr
print("h3. unlisted case files said; an entry's bad metadata refused before any set is regenerated, by golden too")
passed += 1
# (6) A hash-only entry's metadata must be the set's, key for key (they were never compared).
hh = os.path.join(work, "hh")
assert golden(hh, "--hash-only").returncode == 0
good_hh = manifest(hh)
for key, value in (("seed", "000"), ("tokens", "05"), ("eps", "1e-6"), ("note", "mine")):
    m = json.loads(json.dumps(good_hh))
    m["files"][0]["metadata"][key] = value
    json.dump(m, open(os.path.join(hh, "manifest.json"), "w"))
    r = run("regress", hh)
    assert r.returncode == 1 and f"the manifest's metadata: '{key}' is " in r.stdout and f"'{value}' in the manifest" in r.stdout, \
        (key, r.stdout + r.stderr)
json.dump(good_hh, open(os.path.join(hh, "manifest.json"), "w"))
regress_ok(hh)
print("h4. a hash-only entry's metadata compared with the set's, key for key")
passed += 1
print(f"{passed} passed, 0 failed")
