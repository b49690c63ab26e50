#!/usr/bin/env python3
"""Bad input and faults, one class per run: every one ends with a clear exit
2 (bad input or usage) or 1 (a numerical failure, or a run ended by a fault),
a message that names what was wrong, nothing overwritten, nothing half-written.

usage: cli_faults.py LTT MPIRUN WORKDIR CLASS
CLASS: aborts inputs flags lists outputs messages mpi inject robust unseen
"""
import hashlib
import json
import os
import shlex
import resource
import shutil
import signal
import struct
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import stfile  # noqa: E402

ltt, mpirun, work, cls = os.path.abspath(sys.argv[1]), sys.argv[2], os.path.abspath(sys.argv[3]), sys.argv[4]
MPI = [mpirun, "--oversubscribe", "--allow-run-as-root"]
SMALL = ["--dims", "small"]
failures = []
checks = 0


def run(args, timeout=120, **kw):
    """Runs args; a run past `timeout` comes back as exit -9 with 'TIMEOUT' on stderr (a failed check, not a crash)."""
    t0 = time.time()
    try:
        # Bytes that are no UTF-8 (a regressed escape of a file's name) are checked for, not a crash of the test.
        r = subprocess.run(args, capture_output=True, text=True, errors="backslashreplace", timeout=timeout, **kw)
    except subprocess.TimeoutExpired as e:
        # What came before the timeout is bytes even with text=True (Python's TimeoutExpired).
        text = [x.decode(errors="replace") if isinstance(x, bytes) else x or "" for x in (e.stdout, e.stderr)]
        r = subprocess.CompletedProcess(args, -9, text[0], text[1] + f"TIMEOUT after {timeout} s")
    r.seconds = time.time() - t0
    return r


def expect(cond, what, r=None):
    global checks
    checks += 1
    if not cond:
        failures.append(what + ("" if r is None else f"\n  exit {r.returncode}\n  stdout: {r.stdout[-1500:]}\n  stderr: {r.stderr[-1500:]}"))


def refused(args, needle, code=2, what=None):
    """args exit with `code` and name `needle` on stderr; no abort, no backtrace."""
    r = run([ltt] + args)
    text = r.stdout + r.stderr
    expect(r.returncode == code and needle in text and "terminate called" not in text and "bad_alloc" not in text
           and "Aborted" not in text, what or f"ltt {' '.join(args)}: want exit {code} naming {needle!r}", r)
    return r


def sha(path):
    return hashlib.sha256(open(path, "rb").read()).hexdigest()


def waiting(args, err_path, needle, **kw):
    """Starts ltt with args (stderr to err_path), waits up to 30 s for `needle` there; -> (the process, its stderr so far)."""
    p = subprocess.Popen([ltt] + args, stderr=open(err_path, "w"), text=True, **kw)
    deadline = time.time() + 30
    while time.time() < deadline and needle not in open(err_path).read():
        time.sleep(0.2)
    return p, open(err_path).read()


def ended(p):
    """The stdout of a process started by waiting(), once it ends (killed after 60 s)."""
    try:
        return p.communicate(timeout=60)[0] or ""
    except subprocess.TimeoutExpired:
        p.kill()
        return p.communicate()[0] or ""


def a_case(name="case", tiers="1"):
    """A small case file and its expected output for tier 1."""
    d = os.path.join(work, name)
    shutil.rmtree(d, ignore_errors=True)
    subprocess.run([ltt, "golden", "--out", d, *SMALL, "--tp", "8", "--tokens", "5", "--dist", "realistic",
                    "--tier", tiers], check=True, stdout=subprocess.DEVNULL)
    f = [x for x in os.listdir(d) if x.endswith(".safetensors")][0]
    return os.path.join(d, f)


shutil.rmtree(work, ignore_errors=True)  # a fresh folder: nothing left from an earlier run can pass a check
os.makedirs(work)
os.chdir(work)

if cls == "aborts":
    # A dump directory that cannot be created: early (a file in its way) and
    # late (the check passes, creating it fails) -- exit 2, no abort.
    open("a_file", "w").write("x")
    plant = SMALL + ["--tp", "8", "--tokens", "33", "--tier", "2", "--dist", "realistic", "--plant", "shard-off-by-one"]
    refused(["check", *plant, "--dump-dir", "a_file/sub"], "a_file is a file, not a directory")
    # A dump folder that cannot be made loses the case file, not the verdict: exit 1 (the case failed), said.
    r = refused(["check", *plant, "--dump-dir", "/proc/ltt-no-such-dir"], "--dump-dir /proc/ltt-no-such-dir: cannot create", code=1)
    expect("no case file for this failure (its verdict stands): --dump-dir /proc/ltt-no-such-dir: cannot create" in r.stderr
           and "give --dump-dir a folder that can be made and written" in r.stderr and "# 1 case, 1 failed" in r.stdout,
           "a dump folder that cannot be made: the verdict printed, the lost file said", r)
    # Sizes that cannot fit: refused up front with the figure, in every subcommand that allocates.
    for sub in (["check"], ["selftest"], ["golden", "--out", "big"], ["check", "--invariance"]):
        refused([*sub, *SMALL, "--tokens", "99999999"], "of memory and")
        refused([*sub, "--dims", "1000000,1000000", "--tokens", "1"], "of memory and")
    expect(not os.path.exists("big"), "golden refused for memory left its --out folder behind")

elif cls == "inputs":
    case = a_case()
    tensors, meta = stfile.read(case)
    out = os.path.join(work, "out.safetensors")
    stfile.write(out, {"output": tensors["expected.tier1"]})
    before = (sha(case), sha(out))
    refused(["verify", "--case", case, "--output", out, "--json", case], "is one of this run's inputs")
    refused(["verify", "--case", case, "--output", out, "--markdown", out], "is one of this run's inputs")
    refused(["verify", "--case", os.path.dirname(case), "--output", os.path.dirname(case), "--json", case],
            "is in the input directory")
    refused(["verify", "--case", case, "--output", out, "--json", "r.x", "--markdown", "r.x"], "name the same file")
    expect((sha(case), sha(out)) == before, "an input changed")
    r = run([ltt, "verify", "--case", case, "--output", out, "--json", "r.json"])
    expect(r.returncode == 0 and json.load(open("r.json"))["summary"]["cases"] == 1, "verify with a fresh report path", r)

elif cls == "flags":
    case = a_case()
    tensors, _ = stfile.read(case)
    out = os.path.join(work, "out.safetensors")
    stfile.write(out, {"output": tensors["expected.tier1"]})
    v = ["verify", "--case", case, "--output", out]
    refused([*v, "--ulp-max", "-1"], "--ulp-max '-1' is out of range")
    refused([*v, "--ulp-max", "nan"], "--ulp-max 'nan' is not a finite number")
    refused([*v, "--ulp-frac", "2"], "--ulp-frac '2' is out of range")
    refused([*v, "--tier", "-1"], "--tier '-1' is out of range")
    # One parser per flag: the same refusal in every subcommand that takes it.
    for sub in (["check"], ["selftest"], ["golden", "--out", "g"], ["mutants"]):
        refused([*sub, "--seed", "-1"], "--seed '-1' is negative")
        refused([*sub, "--seed", "18446744073709551616"], "--seed '18446744073709551616' is too large")
        if sub[0] != "mutants":  # mutants draws its cases at the default eps: it takes no --eps
            refused([*sub, "--eps", "0"], "--eps '0' is out of range")
    refused(["mutants", "--eps", "1e-5"], "ltt mutants: --eps is not a flag of mutants: 'ltt mutants --help' lists its flags")
    for extra in (["--backend", "cpu"], ["--plant", "hang"], ["--dump-dir", "d"], ["--markdown", "m.md"], ["--variant", "1"],
                  ["--gemm-algos", "all"]):
        refused(["check", "--invariance", *SMALL, *extra], f"check --invariance does not use {extra[0]}")
    refused(["check", "--invariance", *SMALL, "--tier", "0", "--tokens", "200"], "nothing to run")
    refused(["check", *SMALL, "--tier", "0", "--tokens", "200"], "no case to run")
    # Bad shapes, sizes and selections are refused before the first line, in mutants as in check.
    for args, needle in ((["--tp", "7"], "is not divisible by T = 7"), (["--tier", "0", "--tokens", "300"], "no case to run"),
                         (["--tokens", "99999999"], "mutants: the case")):
        r = refused(["mutants", *SMALL, *args], needle)
        expect(r.stdout == "", f"mutants {args}: nothing on stdout before the refusal", r)
    refused(["check", "--backend", "foo"], "--backend 'foo' not understood")
    refused(["check", "--inject-rank", "2"], "--inject-rank needs --inject")
    refused(["check", *SMALL, "--gemm-algos", "listed"], "--gemm-algos runs the cuda backend's GEMMs by each of cuBLASLt's")
    refused(["check", *SMALL, "--transport", "nccl"], "--transport nccl is for --backend cuda under mpirun")
    refused(["check", *SMALL, "--transport", "shm"], "--transport 'shm' not understood")
    # A flag a subcommand does not take is refused there.
    refused(["selftest", "--json", "x.json"], "ltt selftest: --json is not a flag of selftest")
    refused(["verify", *v[1:], "--tp", "8"], "ltt verify: --tp is not a flag of verify")
    r = run([ltt, *v, "--ulp-max", "0", "--ulp-frac", "0"])
    expect(r.returncode == 0, "a bit-identical output with the strictest gate passes", r)

elif cls == "lists":
    refused(["selftest", "--tokens", "1,,2"], "--tokens '1,,2': item 2 is empty")
    refused(["selftest", "--tokens", "1,"], "--tokens '1,': item 2 is empty")
    refused(["selftest", "--tokens", ""], "--tokens is empty")
    refused(["selftest", "--tokens", "1", "--tokens", "2"], "ltt selftest: --tokens is given twice: give it once (a list is one value")
    # An option that takes no list is not told about lists.
    refused(["simulate", "--collective", "ring", "--collective", "tree"], "ltt simulate: --collective is given twice: give it once\n")
    # CLI11's own refusals name the command and where its options are listed.
    refused(["selftest", "--tp", "8", "extra"], "ltt selftest: these words were not expected: extra\nRun 'ltt selftest --help'")
    # CLI11 lists the words it leaves over in reverse ("4 --tp"); ltt puts
    # them back in the command line's order, and names what '--' does.
    refused(["check", "--", "--tp", "4"], "ltt check: these words were not expected: --tp 4 (every word after '--' is taken as a plain argument: drop the '--')")
    refused(["check", "--tp", "4", "foo", "bar"], "these words were not expected: foo bar\n")
    refused(["selftest", "--tokens", "5,5"], "--tokens '5,5': 5 is given twice")
    refused(["selftest", "--dist", "exact,realistic,exact"], "--dist 'exact,realistic,exact': exact is given twice")
    refused(["selftest", "--dist", "all,realistic"], "'all' stands alone")
    refused(["selftest", "--dims", "100000000,8"], "H and L are at most 1048576 each")
    refused(["mutants", "--only", ","], "--only ',': item 1 is empty (a stray comma?)")
    refused(["simulate", "--fit", "b.json,b.json", "--machine-out", "m.json"], "--fit 'b.json,b.json': b.json is given twice")
    refused(["selftest", "--tp", "8,x"], "--tp '8,x': 'x' is not an integer")
    refused(["selftest", "--tp", "8", "extra"], "were not expected: extra")
    refused(["check", "--algo", ""], "--algo '' not understood")
    refused(["check", "--json", ""], "--json is empty")
    refused(["check", "--dump-dir", ""], "--dump-dir is empty")
    refused(["check", "--tier", "1,,2"], "--tier '1,,2'")
    refused(["check", "--dist", "realistic,"], "--dist 'realistic,'")
    refused(["check", "--variant", "3-1"], "--variant '3-1'")
    refused(["check", "--gemm-algos", "heuristic"], "--gemm-algos 'heuristic': use all, listed, split-k or indices")
    refused(["check", "--gemm-algos", ""], "--gemm-algos '': use all, listed, split-k or indices")
    refused(["foo"], "'foo' is not a command")
    refused(["--foo"], "'--foo' comes before any command")
    r = run([ltt, "--version"])
    expect(r.returncode == 0 and r.stdout.startswith("ltt "), "ltt --version prints the version", r)

elif cls == "outputs":
    # An output path that cannot be written is found before the work: nothing runs.
    r = refused(["check", *SMALL, "--json", "no/such/dir/r.json"], "the directory no/such/dir does not exist")
    expect(r.stdout == "", "check printed a report before refusing its --json", r)
    if os.path.isfile("/proc/version"):  # a file that exists where no file can be made: the reason is the temporary's
        r = refused(["check", *SMALL, "--json", "/proc/version"], "no temporary file can be made beside it (/proc/version.tmp.")
        expect(r.stdout == "", "check printed a report before refusing --json /proc/version", r)
    r = refused(["selftest", *SMALL, "--tp", "8,7"], "not divisible by T = 7")
    expect(r.stdout == "", "selftest --tp 8,7 printed rows before its exit 2", r)
    refused(["golden", "--out", "gout", *SMALL, "--tp", "3"], "not divisible by T = 3")
    expect(not os.path.exists("gout"), "an invalid golden run left an --out folder behind")
    # A write that fails late (/dev/full): the numerical verdict's exit 1 wins, both are printed.
    plant = SMALL + ["--tp", "8", "--tokens", "33", "--tier", "2", "--dist", "realistic"]
    r = run([ltt, "check", *plant, "--plant", "shard-off-by-one", "--json", "/dev/full"])
    expect(r.returncode == 1 and "FAIL tier 2" in r.stdout and "cannot write --json /dev/full: No space left" in r.stderr,
           "a failing run whose report cannot be written: exit 1, both said", r)
    r = run([ltt, "check", *plant, "--markdown", "/dev/full"])
    expect(r.returncode == 2 and "cannot write --markdown /dev/full: No space left" in r.stderr,
           "a passing run whose report cannot be written: exit 2 with the OS's reason", r)

elif cls == "messages":
    case = a_case()
    tensors, meta = stfile.read(case)
    dtype, shape, exp = tensors["expected.tier1"]
    M, H = shape
    out = os.path.join(work, "out.safetensors")

    def moved(i, by):
        b = bytearray(exp)
        (x,) = struct.unpack_from("<H", b, 2 * i)
        struct.pack_into("<H", b, 2 * i, x + by)
        return bytes(b)

    # The reproduce line keeps the strict gate and names the binary that ran.
    stfile.write(out, {"output": (dtype, shape, moved(3, 1))})
    r = run([ltt, "verify", "--case", case, "--output", out, "--ulp-max", "0", "--ulp-frac", "0.5"])
    line = [x for x in r.stdout.splitlines() if "reproduce:" in x]
    expect(r.returncode == 1 and line and "--ulp-max 0" in line[0] and "--ulp-frac 0.5" in line[0]
           and os.path.realpath(ltt) in line[0], "reproduce line of a strict-gate failure", r)
    if line:
        again = run(shlex.split(line[0].split("reproduce:", 1)[1]))  # the line is shell-quoted
        expect(again.returncode == 1, "the reproduce line reproduces the verdict", again)
    # Paths with a space, a quote and a $ run as printed: the line is shell words.
    odd = os.path.join(work, "it's a $dir")
    os.makedirs(odd, exist_ok=True)
    shutil.copy(case, os.path.join(odd, "case 1.safetensors"))
    shutil.copy(out, os.path.join(odd, "out 1.safetensors"))
    r = run([ltt, "verify", "--case", os.path.join(odd, "case 1.safetensors"), "--output", os.path.join(odd, "out 1.safetensors"),
             "--ulp-max", "0"])
    line = [x for x in r.stdout.splitlines() if "reproduce:" in x]
    expect(r.returncode == 1 and len(line) == 1, "a strict-gate failure under a path with a space and a quote", r)
    if line:
        again = run(["sh", "-c", line[0].split("reproduce:", 1)[1]])
        expect(again.returncode == 1 and "out 1.safetensors" in again.stdout, f"the quoted reproduce line runs in sh: {line[0]}", again)
    # A rank that differs: the element named as [row, col].
    stfile.write(out, {"output.tier1.rank0": (dtype, shape, exp), "output.tier1.rank3": (dtype, shape, moved(2 * H + 17, 1))})
    r = run([ltt, "verify", "--case", case, "--output", out])
    expect(r.returncode == 1 and "rank 3 differs from rank 0 first at element [2, 17]" in r.stdout, "rank mismatch element", r)
    # check's own cross-rank comparison names the rank and the element.
    r = run([ltt, "check", *SMALL, "--tp", "8", "--tokens", "5", "--tier", "1", "--dist", "realistic", "--plant", "rank-differs",
             "--json", "rd.json"])
    c = json.load(open("rd.json"))["cases"][0] if os.path.exists("rd.json") else {}
    expect(r.returncode == 1 and "rank 7 differs from rank 0 first at element [2, 128]" in r.stdout
           and c.get("failed_checks") == ["ranks"] and c.get("first_differing_rank") == 7,
           "check --plant rank-differs: caught by the ranks check alone, rank and element named", r)
    # One NaN is one element outside.
    b = bytearray(exp)
    struct.pack_into("<H", b, 2 * 7, 0x7fc0)
    stfile.write(out, {"output": (dtype, shape, bytes(b))})
    r = run([ltt, "verify", "--case", case, "--output", out])
    expect(r.returncode == 1 and "Out of bound values : 1 FAILED" in r.stdout, "one NaN counted once", r)
    # The normwise relative error is a number on adversarial data (it read 4e-38).
    r = run([ltt, "check", *SMALL, "--tp", "8", "--tokens", "33", "--tier", "1,2", "--dist", "adversarial", "--json", "adv.json"])
    nw = [c["vs_truth"]["normwise_rel"] for c in json.load(open("adv.json"))["cases"]] if r.returncode == 0 else []
    cs = json.load(open("adv.json"))["cases"] if r.returncode == 0 else []
    expect(cs and all(c["vs_truth"]["normwise_rel"] is None and "decades" in c["vs_truth"]["normwise_note"] for c in cs),
           f"the normwise relative error is not given on adversarial data, with the reason: {nw}", r)
    r = run([ltt, "check", *SMALL, "--tp", "8", "--tokens", "33", "--tier", "1", "--dist", "realistic", "--json", "rea.json"])
    nw = [c["vs_truth"]["normwise_rel"] for c in json.load(open("rea.json"))["cases"]] if r.returncode == 0 else []
    expect(nw and all(1e-6 < x < 1e-1 for x in nw), f"the normwise relative error on realistic data: {nw}", r)
    # A fake rank that hangs is named; the report so far survives the pipe.
    r = run([ltt, "check", *SMALL, "--tp", "8", "--tokens", "5", "--tier", "1", "--dist", "realistic", "--plant", "hang", "--timeout", "2"])
    expect(r.returncode == 1 and "rank 1 of 8 hangs" in r.stderr and "fake ranks" in r.stderr and r.stdout.startswith("# ltt check"),
           "a hung fake rank is named and the header kept", r)
    # A plant that cannot apply is refused.
    refused(["check", *SMALL, "--tier", "1", "--plant", "shard-off-by-one"], "only tiers 0 and 2 shard")
    refused(["check", *SMALL, "--tp", "1", "--tier", "1", "--plant", "hang"], "T = 1 has no such rank")

elif cls == "mpi":
    case = a_case()
    for sub in (["golden", "--out", "g", *SMALL, "--tokens", "1"], ["regress", os.path.dirname(case)],
                ["verify", "--case", case, "--output", case], ["selftest", *SMALL, "--tokens", "1"], ["mutants", *SMALL]):
        r = run(MPI + ["-np", "2", ltt, *sub])
        n = (r.stdout + r.stderr).count("runs in one process")
        expect(r.returncode == 2 and n == 1 and "# " not in r.stdout, f"mpirun -np 2 ltt {sub[0]}: once, exit 2", r)
    expect(not os.path.exists("g"), "golden under mpirun wrote files")

elif cls == "inject":
    base = [*SMALL, "--tp", "8", "--tokens", "5", "--tier", "1", "--dist", "realistic", "--timeout", "3"]
    # The exit codes the README gives: a crash dies by its signal (139, also
    # through mpirun), a hang or an early exit is a failed run (1).
    for how, verb, code in (("crash", "crashed", 139), ("hang", "no progress", 1), ("exit", "exited before the run was over", 1)):
        for layout in ([], MPI + ["-np", "2"]):
            r = run(layout + [ltt, "check", *base, "--inject", how, "--inject-rank", "6"], timeout=60)
            where = "rank 6 of 8" + (" (fake" if not layout else "")
            expect(r.returncode in (code, -11 if code == 139 else code) and verb in r.stderr and "rank 6 of 8" in r.stderr
                   and r.seconds < 30 and (layout or "fake ranks" in r.stderr),
                   f"--inject {how} {'real' if layout else 'fake'} ranks: exit {code}, {where} named, {r.seconds:.1f} s", r)
    # A run killed part way (SIGKILL: no handler can help) keeps what it judged so far in its JSON (and
    # check's Markdown), marked unfinished and with no verdict; a finished run's reports have no such marks.
    def killed_after_two_rows(args, report, row_ends):
        """Runs ltt ARGS, SIGKILLs it once its second row is out (row 2 is printed after row 1's report
        was written); returns whether it was still on, the rows read and the JSON report (or {})."""
        p = subprocess.Popen([ltt, *args], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        rows = 0
        for line in p.stdout:
            rows += not line.startswith("#") and line.rstrip().endswith(row_ends)
            if rows == 2:
                break
        still_on = p.poll() is None
        p.kill()
        p.wait()
        return still_on, rows, json.load(open(report)) if os.path.exists(report) else {}

    # The third case (M 4096) runs for seconds, so the kill comes while it runs, on any machine and build.
    kill = ["check", "--dims", "1024,512", "--tp", "8", "--tokens", "1,5,4096", "--tier", "1", "--dist", "realistic"]
    on, rows, j = killed_after_two_rows([*kill, "--json", "k.json", "--markdown", "k.md"], "k.json", (" ok", " FAIL"))
    cases, md = j.get("cases", []), open("k.md").read() if os.path.exists("k.md") else ""
    expect(on and j.get("finished") is False and "summary" not in j and j.get("cases_planned") == 3
           and 1 <= j.get("cases_done", 0) == len(cases) <= 2 and all(c["pass"] for c in cases)
           and [c["tokens"] for c in cases] == [1, 5][:len(cases)]
           and f"{len(cases)} of 3 cases" in j.get("note", "") and "no verdict" in j.get("note", "")
           and md.startswith(f"### ltt check: did not finish ({len(cases)} of 3 cases so far, 0 failed)")
           and md.count("| pass |") == len(cases),
           f"a killed run's reports keep the cases judged, unfinished (row {rows} read): {json.dumps(j)[:600]} {md[:300]}")
    small = ["check", "--dims", "1024,512", "--tp", "8", "--tokens", "1,5", "--tier", "1,2", "--dist", "realistic"]
    r = run([ltt, *small, "--json", "k.json", "--markdown", "k.md"])
    j = json.load(open("k.json"))
    expect(r.returncode == 0 and j.get("finished") is True and j["summary"]["cases"] == len(j["cases"]) == 4
           and "cases_done" not in j and "note" not in j and open("k.md").read().startswith("### ltt check: pass"),
           "a run to its end: its reports are whole, with no unfinished marks", r)
    # So with mutants: the mutants judged so far, with no "pass".
    on, rows, j = killed_after_two_rows(["mutants", "--dims", "1024,512", "--tp", "8", "--tokens", "128", "--dist", "realistic",
                                         "--tier", "1,2", "--json", "km.json"], "km.json", ("caught", "MISSED", "no effect"))
    judged = len(j.get("mutants", [])) + len(j.get("no_effect", []))
    expect(on and j.get("finished") is False and "pass" not in j and "caught" not in j and j.get("mutants_planned", 0) > 2
           and 1 <= j.get("mutants_done", 0) == judged < j["mutants_planned"] and "no verdict" in j.get("note", ""),
           f"a killed mutants run's JSON keeps the mutants judged, unfinished (row {rows} read): {json.dumps(j)[:600]}")
    # And with --invariance: the batch rows so far, with no count of nondeterministic runs.
    on, rows, j = killed_after_two_rows(["check", "--invariance", "--dims", "1024,512", "--tp", "8,16", "--tokens", "1,5,128",
                                         "--dist", "all", "--json", "ki.json"], "ki.json", ("yes", "NO", "-"))
    expect(on and j.get("finished") is False and "nondeterministic_runs" not in j and j.get("batch_rows_planned") == 30
           and 1 <= j.get("batch_rows_done", 0) == len(j.get("invariance", {}).get("batch", [])) < 30
           and "no verdict" in j.get("note", ""),
           f"a killed --invariance run's JSON keeps its batch rows, unfinished (row {rows} read): {json.dumps(j)[:600]}")
    # A report sent to stdout gets the finished report alone, never the cases so far before it.
    r = run([ltt, *small, "--json", "-"])
    expect(r.returncode == 0 and r.stdout.count('"ltt_version"') == 1 and '"finished": true' in r.stdout,
           "--json - : one report on stdout, the finished one", r)
elif cls == "robust":
    # Found by a review acting as a new user (all were crashes, hangs, lost
    # files or silent nonsense before).
    # 1. A report that cannot be written whole leaves the earlier one as it was
    #    (a file-size limit makes the write fail part way), and no temporary.
    #    Every report goes through one writer; simulate's are written without
    #    MPI, whose own files the limit would stop first.
    base = [*SMALL, "--tp", "8", "--tokens", "5,33", "--tier", "1", "--dist", "realistic"]
    open("r.json", "w").write('{"earlier": true}\n')
    open("r.svg", "w").write("earlier\n")

    def small_files():
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (2048, 2048))
    for flag, f in (("--json", "r.json"), ("--svg", "r.svg")):
        r = run([ltt, "simulate", flag, f], preexec_fn=small_files)
        expect(r.returncode == 2 and f"cannot write {flag} {f}: File too large" in r.stderr and "is left as it was" in r.stderr,
               f"{flag}: a write that fails part way is exit 2, said", r)
    # The run's small "did not finish" notes fit under the limit and replace the earlier reports (so that
    # no earlier report is read as this run's); the reports themselves, cut short, are never left.
    expect(json.load(open("r.json")).get("finished") is False and "has not finished" in open("r.svg").read(),
           "a report that could not be written whole: its file holds the 'did not finish' note, not a cut report")
    expect(not [x for x in os.listdir(".") if ".tmp." in x], f"temporaries left: {os.listdir('.')}")
    r = run([ltt, "check", *base, "--json", "r.json"])
    expect(r.returncode == 0 and json.load(open("r.json"))["summary"]["cases"] == 2, "the same report written whole", r)
    # The rewritten file keeps its mode; a hard link keeps seeing it; a
    # dangling link's target is created, the link kept.
    open("priv.json", "w").write("x")
    os.chmod("priv.json", 0o600)
    open("h1.json", "w").write("x")
    os.link("h1.json", "h2.json")
    os.symlink("made.json", "dang.json")
    for f in ("priv.json", "h1.json", "dang.json"):
        r = run([ltt, "simulate", "--tp", "8", "--tokens", "1", "--json", f])
        expect(r.returncode == 0, f"simulate --json {f}", r)
    expect(os.stat("priv.json").st_mode & 0o777 == 0o600, f"mode after a rewrite: {oct(os.stat('priv.json').st_mode)}")
    expect(open("h2.json").read().startswith("{"), "a hard link to the report no longer sees it")
    expect(os.path.islink("dang.json") and os.path.isfile("made.json"), "a dangling link replaced, not followed")
    # A device file is written in place, never renamed over.
    r = run([ltt, "simulate", "--json", "/dev/null"])
    expect(r.returncode == 0 and os.path.exists("/dev/null") and not os.path.isfile("/dev/null"), "--json /dev/null", r)
    # 2. Two report flags naming one new file, spelled relative and absolute.
    refused(["check", *base, "--json", "q.json", "--markdown", os.path.join(work, "q.json")], "name the same file")
    refused(["check", *base, "--json", "s.json", "--html", "./s.json"], "name the same file")
    expect(not os.path.exists("q.json") and not os.path.exists("s.json"), "a refused run wrote its report")
    # 3. Manifest fields of the wrong type or out of place: exit 2 naming them.
    g = os.path.join(work, "g")
    r = run([ltt, "golden", "--out", g, *SMALL, "--tp", "8", "--tokens", "5", "--dist", "realistic", "--tier", "1"])
    expect(r.returncode == 0, "golden writes a small set", r)
    mpath = os.path.join(g, "manifest.json")
    good = json.load(open(mpath))

    def with_entry(**kv):
        m = json.loads(json.dumps(good))
        m["files"][0].update(kv)
        json.dump(m, open(mpath, "w"))
    for v in ("yes", None, 1):
        with_entry(committed=v)
        refused(["regress", g], "'committed' is")
        refused(["golden", "--out", g, *SMALL, "--tp", "8", "--tokens", "5", "--dist", "realistic", "--tier", "1",
                 "--hash-only"], "'committed' is")
    with_entry(bytes="x")
    refused(["regress", g], "'bytes' is")
    with_entry(file="../elsewhere.safetensors")
    refused(["regress", g], "is not a file name in the manifest's directory")
    for seed in ("-1", "+5", " 0", "18446744073709551616"):
        m = json.loads(json.dumps(good))
        m["files"][0]["metadata"]["seed"] = seed
        json.dump(m, open(mpath, "w"))
        refused(["regress", g], "is not an unsigned 64-bit integer")
    for tiers in ("", "1,1", "1,", ",1", "12"):
        m = json.loads(json.dumps(good))
        m["files"][0]["metadata"]["tiers"] = tiers
        json.dump(m, open(mpath, "w"))
        refused(["regress", g], "is not a comma list of distinct tiers")
    # A manifest whose metadata disagree with the committed file's own:
    # drift, said before anything is regenerated (hidden 1000000 once took
    # seconds and then ran out of memory).
    m = json.loads(json.dumps(good))
    m["files"][0]["metadata"]["hidden"] = "1000000"
    json.dump(m, open(mpath, "w"))
    r = run([ltt, "regress", g])
    expect(r.returncode == 1 and "the manifest's metadata say hidden = '1000000', the file's __metadata__ '256'" in r.stdout
           and r.seconds < 10, "manifest metadata against the file's", r)
    json.dump(good, open(mpath, "w"))
    r = run([ltt, "regress", g])
    expect(r.returncode == 0 and "Drifted sets : 0 OK" in r.stdout, "the untouched manifest still regresses", r)
    # 4. eps below L 2^-102: no error bound exists there, so it is refused, not failed.
    refused(["selftest", *SMALL, "--tokens", "33", "--tp", "8", "--dist", "adversarial", "--eps", "1e-36"], "is below L 2^-102")
    refused(["check", *SMALL, "--tokens", "33", "--tp", "8", "--dist", "adversarial", "--eps", "1e-300"], "is below L 2^-102")
    r = run([ltt, "selftest", *SMALL, "--tokens", "1,33", "--tp", "8,16", "--dist", "all", "--eps", "3e-29"])
    expect(r.returncode == 0, "eps just above L 2^-102 (L 128: 2.5e-29): every bound holds", r)
    # 5. Mutants where the cases cannot carry them: said and skipped, or refused -- never a crash.
    r = run([ltt, "mutants", *SMALL, "--tokens", "5", "--dist", "realistic", "--tp", "1", "--json", "mt1.json"])
    nr = [x["mutant"] for x in json.load(open("mt1.json"))["not_run"]] if r.returncode == 0 else []
    expect(r.returncode == 0 and "not run, no selected case can carry them" in r.stdout and "drop-rank (a bug only at T >= 2)"
           in r.stdout and "MISSED" not in r.stdout and "crashed" not in r.stderr and "drop-rank" in nr and len(nr) == 9,
           f"mutants at T 1: the T >= 2 ones skipped, and listed in the JSON ({nr})", r)
    tiers = {x["mutant"]: x["tiers"] for x in json.load(open("mt1.json"))["mutants"]} if r.returncode == 0 else {}
    expect(tiers.get("double-rank") == [1, 2, 3, 4] and tiers.get("shard-offset") == [2]
           and all(0 not in t for t in tiers.values()),
           f"mutants at T 1: the tiers named are those run, not tier 0 (no case at T 1): {tiers}", r)
    r = run([ltt, "mutants", *SMALL, "--tokens", "5", "--dist", "realistic", "--tp", "2"])
    expect(r.returncode == 0 and "lamport-neg-zero shows only on inputs that hold -0" in r.stdout
           and "lamport-stale shows only on tier-0 cases of one shape whose data differ" in r.stdout
           and "no effect, not counted" in r.stdout and "MISSED" not in r.stdout,
           "mutants that one realistic case cannot show: no effect, not missed, and what would show them said", r)
    r = run([ltt, "mutants", *SMALL, "--tokens", "5", "--dist", "realistic,adversarial", "--tp", "2", "--only",
             "lamport-stale,lamport-neg-zero"])
    expect(r.returncode == 0 and "Mutants caught : 2 of 2 OK" in r.stdout, "with the cases they need, both are caught at T 2", r)
    refused(["check", *SMALL, "--tp", "1,8", "--tokens", "5", "--tier", "1", "--mutant", "drop-rank"], "is a bug only at T >= 2")
    refused(["check", *SMALL, "--tp", "8", "--tokens", "5", "--tier", "1", "--mutant", "lamport-stale"],
            "no selected case is one")
    refused(["mutants", "--only", "eps-x10,eps-x10"], "is given twice")
    # 6. Dumps of runs that differ in dims or mutant never share a file.
    for dims in ("small", "512,256"):
        for mut in ("eps-x10", "g-twice"):
            run([ltt, "check", "--dims", dims, "--tp", "8", "--tokens", "5", "--dist", "realistic", "--tier", "1",
                 "--mutant", mut, "--dump-dir", "dumps"])
    expect(len(os.listdir("dumps")) == 4, f"four failing runs, four dumps: {sorted(os.listdir('dumps'))}")
    # 7. Flags that would be ignored, and flags given twice.
    refused(["check", *SMALL, "--html-all"], "give --html FILE too")
    refused(["selftest", "--tp", "8", "--tp", "16"], "--tp is given twice")
    r = run([ltt, "check", *base, "--html", "h.html", "--html-all", "--html-all"])
    expect(r.returncode == 0, "an on/off flag given twice is taken, as CLI11 takes it", r)
    refused(["check", "--timeout", "1e-9"], "--timeout '1e-9' is out of range")
    refused(["check", "--tp", "99999999999999999999"], "is out of range")
    # 8. A dump that process 0 alone fails to write (its name taken by a
    #    folder) loses that file, not the run: every process ends at once
    #    with the case's exit 1, the table and verdict printed, the reason
    #    said once (the others used to wait in the next collective until the
    #    watchdog; later the run stopped with exit 2 and no verdict).
    os.makedirs("late", exist_ok=True)
    plant = [*SMALL, "--tp", "8", "--tokens", "33", "--tier", "2", "--dist", "realistic", "--plant", "shard-off-by-one"]
    r = run(MPI + ["-np", "2", ltt, "check", *plant, "--dump-dir", "late"], timeout=90)
    names = os.listdir("late")
    expect(r.returncode == 1 and len(names) == 1, f"mpirun -np 2: the planted bug fails and is dumped ({names})", r)
    if len(names) == 1:
        os.remove(os.path.join("late", names[0]))
        os.makedirs(os.path.join("late", names[0]))
        r = run(MPI + ["-np", "2", ltt, "check", *plant, "--dump-dir", "late"], timeout=90)
        expect(r.returncode == 1 and "cannot rename" in r.stderr and r.stderr.count("no case file for this failure") == 1
               and "# 1 case, 1 failed" in r.stdout and r.seconds < 60 and "process 0 stopped the run" not in r.stderr,
               f"mpirun -np 2: a dump process 0 cannot write: exit 1 at once ({r.seconds:.1f} s), the verdict printed, "
               f"its reason said once", r)
    # 9. Reports never go into an input folder: a golden set's manifest, its case files, outputs found by name.
    gdir = os.path.dirname(a_case("set9"))
    before = {f: sha(os.path.join(gdir, f)) for f in os.listdir(gdir)}
    refused(["regress", gdir, "--html", os.path.join(gdir, "manifest.json")], "is in the input directory")
    refused(["regress", gdir, "--html", os.path.join(gdir, "report.html")], "is in the input directory")
    refused(["verify", "--case", gdir, "--output", gdir, "--json", os.path.join(gdir, "new.safetensors")], "is in the input directory")
    expect({f: sha(os.path.join(gdir, f)) for f in os.listdir(gdir)} == before, "the golden set is as it was")
    # 10. Reports to stdout: after the table, through a pipe or into a file, nothing lost.
    case = a_case("case10")
    t10, m10 = stfile.read(case)
    stfile.write("out10.safetensors", {"output": t10["expected.tier1"]})
    r = run([ltt, "verify", "--case", case, "--output", "out10.safetensors", "--json", "/dev/stdout"])
    expect(r.returncode == 0 and r.stdout.startswith("# ltt verify") and '"cases"' in r.stdout, "--json /dev/stdout to a pipe", r)
    with open("so.txt", "w") as f:
        r2 = subprocess.run([ltt, "verify", "--case", case, "--output", "out10.safetensors", "--json", "-"], stdout=f, text=True)
    so = open("so.txt").read()
    expect(r2.returncode == 0 and so.startswith("# ltt verify") and so.rstrip().endswith("}") and not os.path.exists("-"),
           f"--json - into a file: the table, then the JSON ({so[:60]!r}...)")
    r = run([ltt, "verify", "--case", case, "--output", "out10.safetensors", "--json", "/dev/fd/9", "--markdown", "m10.md"])
    expect(r.returncode == 2 and "descriptor 9 is not open" in r.stderr and "# ltt verify" not in r.stdout,
           "--json /dev/fd/9 with no descriptor 9: refused before the run", r)
    # 11. An outputs file says what it holds, once: a tier's rank twice is refused, another tier's tensors and
    #     missing ranks are said, a name like an output but neither form is refused.
    e1 = t10["expected.tier1"]
    stfile.write("two.safetensors", {"output": e1, "output.tier1.rank0": e1})
    refused(["verify", "--case", case, "--output", "two.safetensors"], "are both tier 1 rank 0's output")
    stfile.write("odd.safetensors", {"output.tier1": e1})
    refused(["verify", "--case", case, "--output", "odd.safetensors"], "is neither 'output' nor")
    full = a_case("case11", tiers="1,2")
    t11, _ = stfile.read(full)
    stfile.write("mix.safetensors", {**{f"output.tier1.rank{r}": t11["expected.tier1"] for r in range(7)},
                                     "output.tier2.rank0": (t11["expected.tier2"][0], t11["expected.tier2"][1], bytes(len(t11["expected.tier2"][2])))})
    r = run([ltt, "verify", "--case", full, "--output", "mix.safetensors", "--tier", "1"])
    expect(r.returncode == 0 and "7 of 8 ranks' outputs given" in r.stdout and "left out by --tier 1: output.tier2.rank0" in r.stdout
           and "no output given" not in r.stdout, "--tier 1: the other tier's tensor and the missing rank are said, tier 2 not called missing", r)
    stfile.write("misnamed.safetensors", {"out.tier1.rank0": t11["expected.tier1"]})
    refused(["verify", "--case", full, "--output", "misnamed.safetensors"], "no output to verify: expected a tensor 'output' or "
            "'output.tier{k}.rank{r}' of shape [5, 256] (it holds out.tier1.rank0)")
    r = run([ltt, "verify", "--case", full, "--output", "mix.safetensors"])
    expect(r.returncode == 1, "without --tier the all-zero tier 2 output fails", r)
    # 12. A case file whose expected output is not what its inputs and metadata give is refused.
    for key, val in (("eps", "0.01"), ("rmsnorm_order", "fused")):
        m = dict(m10)
        m[key] = val
        stfile.write("edited.safetensors", t10, m)
        refused(["verify", "--case", "edited.safetensors", "--output", "out10.safetensors"], "is not what the file's inputs and metadata give")
    t = dict(t10)
    del t["expected.tier1"]
    stfile.write("noexp.safetensors", t, m10)
    refused(["verify", "--case", "noexp.safetensors", "--output", "out10.safetensors"], "names tier 1 but there is no tensor 'expected.tier1'")
    # An all-NaN output fails as outside its sets, not as all zero.
    d, sh, b = e1
    stfile.write("nan.safetensors", {"output": (d, sh, b"\xc0\x7f" * (len(b) // 2))})
    r = run([ltt, "verify", "--case", case, "--output", "nan.safetensors", "--json", "nan.json"])
    fc = json.load(open("nan.json"))["cases"][0]["failed_checks"] if os.path.exists("nan.json") else None
    expect(r.returncode == 1 and fc == ["admissible"] and "all zero;" not in r.stdout, f"all-NaN: failed checks {fc}", r)
    # 13. A directory of cases: a malformed output in its last pair stops the run before the first row; an
    #     output with no case is said.
    subprocess.run([ltt, "golden", "--out", "c13", *SMALL, "--tp", "8", "--tokens", "5,7", "--dist", "realistic", "--tier", "1"],
                   check=True, stdout=subprocess.DEVNULL)
    names = sorted(f for f in os.listdir("c13") if f.endswith(".safetensors"))
    os.makedirs("o13")
    for f in names:
        stfile.write(os.path.join("o13", f), {"output": stfile.read(os.path.join("c13", f))[0]["expected.tier1"]})
    stfile.write(os.path.join("o13", "extra.safetensors"), {"output": e1})
    r = run([ltt, "verify", "--case", "c13", "--output", "o13", "--json", "n13.json", "--markdown", "n13.md"])
    expect(r.returncode == 0 and len(names) == 2 and "not checked: 1 output file(s)" in r.stdout and "extra.safetensors" in r.stdout,
           "two cases pass; an output with no case is said", r)
    notes = json.load(open("n13.json")).get("notes") if os.path.exists("n13.json") else None
    expect(notes and len(notes) == 1 and "extra.safetensors" in notes[0] and "extra.safetensors" in open("n13.md").read(),
           f"the output with no case is in the JSON's notes and the Markdown: {notes}", r)
    d, sh, b = stfile.read(os.path.join("c13", names[-1]))[0]["expected.tier1"]
    stfile.write(os.path.join("o13", names[-1]), {"output": (d, [1, sh[1]], b[:2 * sh[1]])})
    r = run([ltt, "verify", "--case", "c13", "--output", "o13", "--json", "d13.json"])
    expect(r.returncode == 2 and "# ltt verify" not in r.stdout and names[-1] in r.stderr
           and os.path.exists("d13.json") and json.load(open("d13.json")).get("finished") is False, "a bad output in the last pair: exit 2 before any row", r)
    cdir = os.path.dirname(case)
    # 14. golden replaces only files it wrote; a manifest that lists a file twice, or the wrong size, is caught.
    os.makedirs("gx")
    name = os.path.basename(case)
    open(os.path.join("gx", name), "w").write("my outputs\n")
    refused(["golden", "--out", "gx", *SMALL, "--tp", "8", "--tokens", "5", "--dist", "realistic", "--tier", "1"],
            "does not list it")
    expect(open(os.path.join("gx", name)).read() == "my outputs\n", "golden left the unlisted file as it was")
    mf = os.path.join(cdir, "manifest.json")
    good = json.load(open(mf))
    bad = json.loads(json.dumps(good))
    bad["files"].append(bad["files"][0])
    json.dump(bad, open(mf, "w"))
    refused(["regress", cdir], "is listed twice")
    bad = json.loads(json.dumps(good))
    bad["files"][0]["bytes"] += 1
    json.dump(bad, open(mf, "w"))
    r = run([ltt, "regress", cdir])
    expect(r.returncode == 1 and "bytes, the manifest says" in r.stdout, "a manifest's wrong size is drift", r)
    json.dump(good, open(mf, "w"))
    # 15. Found by the twenty-sixth session's review acting as a new user.
    # A run the watchdog ends leaves "did not finish" in its reports, not the earlier run's pass.
    base15 = [*SMALL, "--tp", "8", "--tokens", "5", "--tier", "1", "--dist", "realistic"]
    r = run([ltt, "check", *base15, "--json", "r15.json", "--markdown", "r15.md"])
    j = json.load(open("r15.json")) if os.path.exists("r15.json") else {}
    expect(r.returncode == 0 and j.get("finished") is True and j.get("summary", {}).get("failed") == 0, "a finished report", r)
    r = run([ltt, "check", *base15, "--json", "r15.json", "--markdown", "r15.md", "--inject", "hang", "--timeout", "2"], timeout=60)
    j = json.load(open("r15.json")) if os.path.exists("r15.json") else {}
    expect(r.returncode == 1 and j.get("finished") is False and "cases" not in j and "summary" not in j
           and "did not finish" in open("r15.md").read(), f"a hung run's reports say it did not finish: {j}", r)
    r = run([ltt, "verify", "--case", case, "--output", "out10.safetensors", "--json", "r15.json"])
    j = json.load(open("r15.json")) if os.path.exists("r15.json") else {}
    expect(r.returncode == 0 and j.get("finished") is True and "verify" in j.get("command", ""), "verify's finished report", r)
    r = run([ltt, "verify", "--case", "edited.safetensors", "--output", "out10.safetensors", "--json", "r15.json"])
    j = json.load(open("r15.json")) if os.path.exists("r15.json") else {}
    expect(r.returncode == 2 and j.get("finished") is False and "verify" in j.get("command", ""),
           "verify refused part way: its report says it did not finish", r)
    # A file verify cannot read is refused, and the earlier run's passing report is not left to be read as
    # this run's (r15.json holds a finished report again first); so with --markdown and --html.
    run([ltt, "verify", "--case", case, "--output", "out10.safetensors", "--json", "r15.json", "--markdown", "r15.md", "--html", "r15.html"])
    open("junk.safetensors", "wb").write(b"junk")
    r = run([ltt, "verify", "--case", case, "--output", "junk.safetensors", "--json", "r15.json", "--markdown", "r15.md", "--html", "r15.html"])
    j = json.load(open("r15.json")) if os.path.exists("r15.json") else {}
    expect(r.returncode == 2 and j.get("finished") is False and "did not finish" in open("r15.md").read()
           and "did not finish" in open("r15.html").read(), "an unreadable output: refused, no earlier passing report left", r)
    # A tier asked for where it does not apply is said, not dropped unseen.
    r = run([ltt, "check", *SMALL, "--tp", "8", "--tokens", "5,129", "--tier", "0,1", "--dist", "realistic"])
    expect(r.returncode == 0 and "tier 0 skipped at T 8 M 129 (tier 0 needs T >= 2 and M <= 128)" in r.stderr
           and "# 3 cases, 0 failed" in r.stdout, "check: tier 0 at M 129 said skipped", r)
    r = run([ltt, "golden", "--out", "g15", *SMALL, "--tp", "8", "--tokens", "129", "--tier", "0,1", "--dist", "realistic"])
    expect(r.returncode == 0 and "ltt golden: tier 0 skipped at T 8 M 129" in r.stderr, "golden: tier 0 at M 129 said skipped", r)
    # Batch invariance at one M compares nothing, and says so.
    r = run([ltt, "check", "--invariance", *base15, "--json", "i15.json"])
    b = json.load(open("i15.json"))["invariance"]["batch"] if os.path.exists("i15.json") else []
    expect(r.returncode == 0 and len(b) == 1 and b[0]["batch_invariant"] is None and b[0]["rows_compared"] == 0
           and "comparing needs two" in r.stdout, f"--invariance at one M: no batch claim ({b})", r)
    # T against 2T compares each tier at the largest M it runs at: tier 0 at M 128 when M 129 is asked
    # too (it was dropped, with "needs --tp T and 2T" although 8,16 was given); a selection switch
    # whose tier --tier leaves out is named, not run.
    r = run([ltt, "check", "--invariance", *SMALL, "--tp", "8,16", "--tier", "0", "--tokens", "5,128,129",
             "--dist", "realistic", "--json", "i0.json"])
    inv = json.load(open("i0.json"))["invariance"] if os.path.exists("i0.json") else {}
    expect(r.returncode == 0 and [(x["tier"], x["tokens"], x["tp"]) for x in inv.get("tp", [])] == [(0, 128, [8, 16])]
           and "tier 0 realistic M 128: T 8 vs 16: " in r.stdout and "needs --tp" not in r.stdout
           and inv.get("selection_switch") == [] and inv.get("tp_not_compared") == []
           and "M 128 (tier 0) -> 129 (tier 1): not compared, --tier leaves tier 1 out" in r.stdout
           and any("M 128 (tier 0) -> 129 (tier 1): not compared, --tier leaves tier 1 out" in x
                   for x in inv.get("selection_switch_not_compared", [])),
           f"--invariance --tier 0 with M 129: T 8 vs 16 at M 128 ({inv})", r)
    # A switch both of whose tiers --tier leaves out names both.
    r = run([ltt, "check", "--invariance", *SMALL, "--tp", "8", "--tier", "3", "--tokens", "128,129",
             "--dist", "realistic"])
    expect(r.returncode == 0 and "M 128 (tier 0) -> 129 (tier 1): not compared, --tier leaves tiers 0,1 out" in r.stdout,
           "--invariance --tier 3: the switch 0 -> 1 names both tiers left out", r)
    # A case whose inputs were edited: the edited tensor is named.
    t = dict(t10)
    d, sh, raw = t["routed.rank0"]
    raw = bytearray(raw)
    struct.pack_into("<H", raw, 2 * (2 * sh[1] + 3), 0x7fc0)
    t["routed.rank0"] = (d, sh, bytes(raw))
    stfile.write("edin.safetensors", t, m10)
    refused(["verify", "--case", "edin.safetensors", "--output", "out10.safetensors"], "routed.rank0 first at [2, 3]")
    # regress says why it cannot read a manifest; mutants that no selected tier carries are refused before any line.
    refused(["regress", "no-such-set"], "cannot read the manifest: No such file or directory")
    r = refused(["mutants", *SMALL, "--only", "lamport-stale", "--tier", "1"], "lamport-stale acts on tier 0")
    expect(r.stdout == "", "mutants refused before its header", r)
elif cls == "unseen":
    # Found by a review acting as a new user (twenty-eighth session): what a
    # run could not do, or a planted bug could not show, is said, never
    # passed over; no report is lost to another output.
    base = [*SMALL, "--tp", "8", "--tokens", "5", "--tier", "1", "--dist", "realistic"]
    # 1. Two hard links of one file are one file.
    open("h1.json", "w").write("x")
    os.link("h1.json", "h2.json")
    refused(["check", *base, "--json", "h1.json", "--markdown", "h2.json"], "name the same file")
    expect(open("h1.json").read() == "x", "a refused run wrote over its hard-linked report")
    # 2. A report that bears a case file's name: the dump is the one not written, and said.
    os.makedirs("d2", exist_ok=True)
    clash = "d2/tier1_H256_L128_T8_M5_realistic_seed0_one-shot_round-then-weight_tiers1_plant-rank-differs.safetensors"
    r = run([ltt, "check", *base, "--plant", "rank-differs", "--dump-dir", "d2", "--json", clash])
    j = json.load(open(clash)) if r.returncode == 1 else {}
    expect(r.returncode == 1 and "is the --json report's file" in r.stderr and j.get("finished") is True
           and j["cases"][0]["case_file"] == "", "a dump that would replace the --json report is not written, and said", r)
    # 3. One report that cannot be written costs that report alone; each one lost is named.
    r = run([ltt, "check", *base, "--json", "/dev/full", "--markdown", "ok.md", "--html", "ok.html"])
    expect(r.returncode == 2 and "cannot write --json /dev/full" in r.stderr and open("ok.md").read().startswith("### ltt check: pass")
           and "<h1>ltt check: pass</h1>" in open("ok.html").read(), "the reports after one that failed are still written", r)
    # 4. A plant or an injection that would change nothing, or land elsewhere.
    refused(["check", *SMALL, "--tp", "1", "--tokens", "5", "--tier", "2", "--plant", "shard-off-by-one"], "at T = 1 the last rank is rank 0")
    r = run([ltt, "check", *base, "--plant", "hang", "--inject-rank", "3", "--timeout", "1"], timeout=60)
    expect(r.returncode == 1 and "rank 3 of 8 hangs" in r.stderr, "--plant hang honours --inject-rank", r)
    # 5. A stopped case (no output) has no rank, rerun or gate figures, and its section in the HTML report.
    r = run([ltt, "check", *SMALL, "--tp", "8", "--tokens", "5", "--tier", "0", "--dist", "adversarial", "--mutant", "lamport-neg-zero",
             "--html", "stop.html", "--json", "stop.json", "--markdown", "stop.md"])
    row = [x for x in r.stdout.splitlines() if x.strip().startswith("0   8     5")]
    h = open("stop.html").read() if os.path.exists("stop.html") else ""
    c = json.load(open("stop.json"))["cases"][0] if r.returncode == 1 else {}
    expect(r.returncode == 1 and "passed by the production gate" not in r.stdout and row
           and row[0].split()[13:16] == ["-", "-", "-"] and "id='case-0'" in h and "stopped, no output to judge" in h
           and c.get("production_gate_failures", 0) is None, "a stopped case: no figures it cannot have, its HTML section", r)
    schema = os.path.join(os.path.dirname(os.path.abspath(__file__)), "check_json.py")
    r = run([sys.executable, schema, "stop.json", "stop.md"])
    expect(r.returncode == 0, "a stopped case's JSON and Markdown hold to the README's schema", r)
    r = run([ltt, "check", *SMALL, "--tp", "8", "--tokens", "5,129", "--tier", "0,1", "--algo", "ring", "--dist", "realistic",
             "--json", "rs.json", "--markdown", "rs.md"])
    r2 = run([sys.executable, schema, "rs.json", "rs.md"])
    expect(r.returncode == 0 and r2.returncode == 0, "ring and skipped-tier notes together hold to the schema", r2)
    # 6. A mutant that changed no output is said to have no effect, not counted; with none left, nothing was judged.
    m = [ltt, "mutants", *SMALL, "--tp", "8", "--tokens", "5", "--dist", "exact"]
    r = run(m + ["--only", "eps-missing,drop-rank", "--json", "m.json"])
    j = json.load(open("m.json")) if r.returncode == 0 else {}
    expect(r.returncode == 0 and "Mutants caught : 1 of 1 OK" in r.stdout and [x["mutant"] for x in j.get("no_effect", [])] == ["eps-missing"]
           and any(x.split()[-2:] == ["no", "effect"] for x in r.stdout.splitlines() if x.strip().startswith("eps-missing")),
           "mutants: eps-missing on exact data has no effect, said, not counted as missed", r)
    r = refused(m[1:] + ["--only", "eps-missing"], "no mutant changed an output of the selected cases")
    expect("eps-missing" in r.stdout and "no effect" in r.stdout, "the mutant without effect is shown before the refusal", r)
    # A mutant that moves outputs and is missed stays MISSED (ring's wider sets: eps-x10 on small data).
    r = run([ltt, "mutants", *SMALL, "--tp", "8", "--tokens", "33", "--dist", "realistic", "--algo", "ring", "--only", "eps-x10,drop-rank"])
    expect(r.returncode == 1 and "Mutants caught : 1 of 2 FAILED" in r.stdout, "a mutant that changed outputs and was missed is MISSED", r)
    # check --mutant where every case passed says so.
    r = run([ltt, "check", *SMALL, "--tp", "8", "--tokens", "5", "--dist", "exact", "--tier", "1", "--mutant", "eps-missing"])
    expect(r.returncode == 0 and "--mutant eps-missing was planted and every case passed" in r.stdout, "check --mutant's pass is said", r)
    # 7. A mutant --only names whose tiers are left out is listed as not run.
    r = run([ltt, "mutants", *SMALL, "--tp", "8", "--tokens", "5", "--tier", "1", "--only", "rs-next-shard,drop-rank", "--json", "m7.json"])
    j = json.load(open("m7.json")) if r.returncode == 0 else {}
    expect(r.returncode == 0 and "rs-next-shard acts on tier 0, none selected" in r.stdout
           and [x["mutant"] for x in j.get("not_run", [])] == ["rs-next-shard"], "a named mutant left out by --tier is said", r)
    # A tier-0 mutant with T >= 2 given but no M <= 128 is put down to tier 0's shapes, not to its T floor.
    r = run([ltt, "mutants", *SMALL, "--tp", "2,4", "--tokens", "129", "--tier", "0,1", "--dist", "exact",
             "--only", "rs-next-shard,drop-rank", "--json", "m7b.json"])
    j = json.load(open("m7b.json")) if r.returncode == 0 else {}
    expect(r.returncode == 0 and "rs-next-shard (it acts on tier 0 alone, and tier 0 needs T >= 2 and M <= 128: no selected M is 128 or less)"
           in r.stdout and "a bug only at T >= 2" not in r.stdout
           and [x.get("why") for x in j.get("not_run", [])] == ["it acts on tier 0 alone, and tier 0 needs T >= 2 and M <= 128: no selected M "
                                                               "is 128 or less"], "a tier-0 mutant left out by M is said so", r)
    r = run([ltt, "mutants", *SMALL, "--tp", "1", "--tokens", "5", "--tier", "0,1", "--dist", "exact", "--only", "rs-next-shard,drop-rank"])
    expect(r.returncode == 2 and "rs-next-shard (a bug only at T >= 2)" in r.stderr, "a mutant left out by its T floor says so", r)
    refused(["mutants", "--list", "--json", "l.json"], "mutants --list prints the mutant table and runs nothing: drop --json")
    expect(not os.path.exists("l.json"), "mutants --list wrote its --json")
    # 8. A tier skipped at selection is kept in the reports; the command is shell words.
    r = run([ltt, "check", *SMALL, "--tp", "8", "--tokens", "129", "--tier", "0,1", "--dist", "realistic", "--json", "my r.json"])
    j = json.load(open("my r.json")) if r.returncode == 0 else {}
    expect(r.returncode == 0 and any(n.startswith("tier 0 skipped at T 8 M 129") for n in j.get("notes", []))
           and "--json 'my r.json'" in j.get("command", ""), "the skipped tier in the JSON notes; the command quoted", r)
    # 9. verify, found by a review acting as a new user.
    import re  # noqa: E402
    subprocess.run([ltt, "golden", "--out", "g9", *SMALL, "--tp", "8", "--tokens", "5,33", "--dist", "adversarial", "--tier", "1,2"],
                   check=True, stdout=subprocess.DEVNULL)
    names9 = sorted(f for f in os.listdir("g9") if f.endswith(".safetensors"))
    os.makedirs("o9")
    exp9 = {f: stfile.read(os.path.join("g9", f))[0] for f in names9}
    for f in names9:  # the last case's outputs leave tier 2 out
        t = {"output.tier1.rank0": exp9[f]["expected.tier1"]}
        if f != names9[-1]:
            t["output.tier2.rank0"] = exp9[f]["expected.tier2"]
        stfile.write(os.path.join("o9", f), t)
    r = run([ltt, "verify", "--case", "g9", "--output", "o9", "--markdown", "v9.md", "--html", "v9.html", "--html-all"])
    md9 = open("v9.md").read() if os.path.exists("v9.md") else ""
    # (a) a note found after the table's header is printed too (it was only kept in the reports);
    # (b) the Markdown says which case file each row is; (c) no hot cell on a passing case where the
    # truth overflows bf16 and the output is that Inf (adversarial M 33 has such elements).
    expect(r.returncode == 0 and f"{names9[-1]}: no output given for tier 2" in r.stdout
           and md9.count("| case " + names9[0]) == 2 and md9.count("| case " + names9[-1]) == 1,
           "verify of a directory: a later case's note printed; the Markdown names each row's case", r)
    h9 = open("v9.html").read() if os.path.exists("v9.html") else ""
    maps = [json.loads(m) for m in re.findall(r"<script type='application/json' id='map-\d+'>(.*?)</script>", h9, re.S)]
    expect(len(maps) == 3 and all(max(m["err_bound"]) <= 1 for m in maps),
           f"passing cases' |y - truth| / bound maps have nothing above 1: {[max(m['err_bound']) for m in maps]}")
    # (d) ranks 1-7 given, rank 7 off by one step: it differs from rank 1 (the lowest given), not from rank 0.
    e9 = exp9[names9[0]]["expected.tier1"]
    off = bytearray(e9[2])
    struct.pack_into("<H", off, 0, struct.unpack_from("<H", off, 0)[0] + 1)
    stfile.write("r9.safetensors", {**{f"output.tier1.rank{k}": e9 for k in range(1, 7)}, "output.tier1.rank7": (e9[0], e9[1], bytes(off))})
    r = run([ltt, "verify", "--case", os.path.join("g9", names9[0]), "--output", "r9.safetensors", "--tier", "1", "--json", "r9.json"])
    c9 = json.load(open("r9.json"))["cases"][0] if os.path.exists("r9.json") else {}
    expect(r.returncode == 1 and "rank 7 differs from rank 1 first at element [0, 0]" in r.stdout
           and c9.get("compared_with_rank") == 1 and c9.get("first_differing_element") == [0, 0], "a differing rank against the lowest given", r)
    # (e) F32 outputs whose values round to the same bf16: the same Y on both ranks.
    f32 = b"".join(struct.pack("<f", struct.unpack("<f", struct.pack("<I", v << 16))[0] * (1 + 2 ** -20))
                   for (v,) in struct.iter_unpack("<H", e9[2]))
    wide = b"".join(struct.pack("<I", v << 16) for (v,) in struct.iter_unpack("<H", e9[2]))
    stfile.write("f9.safetensors", {"output.tier1.rank0": ("F32", e9[1], wide), "output.tier1.rank1": ("F32", e9[1], f32)})
    r = run([ltt, "verify", "--case", os.path.join("g9", names9[0]), "--output", "f9.safetensors", "--tier", "1"])
    expect(r.returncode == 0, "F32 ranks equal once rounded to bf16 agree", r)
    # (f) a case relabelled with another seed: verified by its tensors, and the label said not to be the data's.
    t9, m9 = stfile.read(os.path.join("g9", names9[0]))
    stfile.write("relabel.safetensors", t9, {**m9, "seed": "7"})
    r = run([ltt, "verify", "--case", "relabel.safetensors", "--output", os.path.join("o9", names9[0]), "--tier", "1"])
    expect(r.returncode == 0 and "inputs unlike those seed 7 adversarial generates" in r.stdout
           and "are the case file's labels, not its data's" in r.stdout, "a relabelled case: the labels said not to be the data's", r)
    # 10. Found by the thirtieth session's reviews acting as new users.
    # (a) --variant's row is the worst member's: its ULP columns are the largest of the seeds run alone.
    v = [*SMALL[:0], "--dims", "1024,512", "--tp", "8", "--tokens", "33", "--tier", "1", "--dist", "realistic"]

    def ulps(args):
        r = run([ltt, "check", *v, *args])
        row = [ln.split() for ln in r.stdout.splitlines() if ln.startswith("     1   8    33")]
        return (tuple(int(x) for x in row[0][9:13]) if r.returncode == 0 and len(row) == 1 else None), r
    alone = [ulps(["--variant", str(k)])[0] for k in range(4)]
    both, r = ulps(["--variant", "0-3"])
    worst = max(alone, key=lambda u: (u[3], u[2], u[1])) if None not in alone else None
    expect(worst is not None and both == worst and len(set(alone)) > 1,
           f"--variant 0-3's row is the worst seed's ULP figures: {both}, alone {alone}", r)
    r = run([ltt, "check", *v, "--variant", "0-3", "--ulp-max", "0"])
    expect(r.returncode == 1 and f"the row is seed {alone.index(worst)}'s, the worst" in r.stdout,
           "the note names the row's seed", r)
    # (b) --transport and --peer-memory where no processes share the ranks do nothing: refused.
    refused(["check", *base, "--transport", "ipc"], "--transport ipc is for --backend cuda under mpirun (it chooses the collectives")
    refused(["check", *base, "--peer-memory", "cuda-ipc"], "--peer-memory cuda-ipc is for --backend cuda under mpirun (it chooses where")
    # (c) verify names a tensor it does not read (a misspelt output), under the row.
    t10, m10 = stfile.read(os.path.join("o9", names9[0]))
    t10 = {**t10, "outptu.tier1.rank3": next(iter(t10.values()))}
    stfile.write("typo10.safetensors", t10, m10)
    r = run([ltt, "verify", "--case", os.path.join("g9", names9[0]), "--output", "typo10.safetensors", "--tier", "1"])
    expect(r.returncode == 0 and "not read (neither an output nor a case file's tensor): outptu.tier1.rank3" in r.stdout,
           "verify names the tensor it did not read", r)
    # (d) golden refused for memory prints that refusal alone (no skipped-tier line first).
    r = run([ltt, "golden", "--out", "g10", "--tokens", "99999999"])
    expect(r.returncode == 2 and r.stderr.count("\n") == 1 and "needs at least" in r.stderr and not os.path.exists("g10"),
           "golden refused for memory: one line", r)
    # (e) the watchdog's message says what to do when a run is only slow.
    r = run([ltt, "check", *base, "--inject", "hang", "--timeout", "0.5"])
    expect(r.returncode == 1 and "needs a larger --timeout" in r.stderr, "the watchdog's message names the remedy", r)
    # (f) A dangling link to another report's file names that file: refused, the JSON not lost.
    os.symlink("r10.json", "link10.md")
    refused(["check", *base, "--json", "r10.json", "--markdown", "link10.md"], "name the same file")
    expect(not os.path.exists("r10.json"), "a refused run made the dangling link's target")
    # (g) --json /dev/stdin is the file stdin reads from: refused, never replaced.
    open("in10.txt", "w").write("precious\n")
    with open("in10.txt") as fin:
        r = run([ltt, "check", *base, "--json", "/dev/stdin"], stdin=fin)
    expect(r.returncode == 2 and "descriptor 0 is open for reading only" in r.stderr
           and open("in10.txt").read() == "precious\n", "--json /dev/stdin: refused, stdin's file kept", r)
    # (h) A refused run leaves "did not finish", not the earlier run's passing reports (check, --invariance, mutants).
    r = run([ltt, "check", *base, "--json", "p10.json", "--markdown", "p10.md"])
    expect(r.returncode == 0 and json.load(open("p10.json"))["finished"] is True, "the earlier run passes", r)
    for bad in (["--tp", "7", "--tokens", "5"], ["--tp", "8", "--tokens", "99999999"],
                ["--tp", "8", "--tokens", "5", "--tier", "1", "--plant", "shard-off-by-one"]):
        r = run([ltt, "check", *SMALL, "--dist", "realistic", *bad, "--json", "p10.json", "--markdown", "p10.md"])
        expect(r.returncode == 2 and json.load(open("p10.json"))["finished"] is False
               and "did not finish" in open("p10.md").read() and "refused" in open("p10.md").read(),
               f"check {' '.join(bad)} refused: the earlier reports say 'did not finish'", r)
    r = run([ltt, "check", "--invariance", *base, "--json", "i10.json"])
    expect(r.returncode == 0 and json.load(open("i10.json"))["finished"] is True, "the earlier --invariance run", r)
    r = run([ltt, "check", "--invariance", *SMALL, "--tp", "7", "--tokens", "5", "--json", "i10.json"])
    expect(r.returncode == 2 and json.load(open("i10.json"))["finished"] is False, "--invariance refused: did not finish", r)
    r = run([ltt, "mutants", *SMALL, "--tp", "8", "--tokens", "5", "--dist", "exact", "--only", "drop-rank", "--json", "m10.json"])
    m10 = json.load(open("m10.json")) if r.returncode == 0 else {}
    expect(m10.get("pass") is True and m10.get("caught") == m10.get("of") == 1, "mutants' JSON says pass", r)
    r = run([ltt, "mutants", *SMALL, "--tp", "7", "--tokens", "5", "--json", "m10.json"])
    expect(r.returncode == 2 and json.load(open("m10.json"))["finished"] is False, "mutants refused: did not finish", r)
    r = run([ltt, "mutants", *SMALL, "--tp", "8", "--tokens", "5", "--dist", "exact", "--only", "eps-missing",
             "--json", "m10.json"])
    m10 = json.load(open("m10.json")) if os.path.exists("m10.json") else {}
    expect(r.returncode == 2 and m10.get("pass") is False and m10.get("of") == 0,
           "mutants with nothing judged: the JSON's pass is false", r)
    r = refused(["mutants", *SMALL, "--tp", "8", "--tokens", "5", "--only", "tier1-own-s", "--tier", "2"],
                "(--tier 2: tier1-own-s acts on tier 1)")
    expect("none selected" not in r.stderr, "the refusal names the mutant's tier once", r)
    # (i) mpirun's "A : B" with other flags per process: refused at once, not a hang, a crash or a false failure.
    one = ["check", *SMALL, "--tp", "8", "--tier", "1", "--dist", "realistic", "--timeout", "10", "--json", "ab10.json"]
    for a, b in ((["--tokens", "5"], ["--tokens", "5,33"]), (["--tokens", "5"], ["--tokens", "33"]), (["--seed", "0"], ["--seed", "1"])):
        open("ab10.json", "w").write('{"finished": true, "earlier": "pass"}')
        r = run(MPI + ["-np", "1", ltt, *one, *a, ":", "-np", "1", ltt, *one, *b], timeout=90)
        expect(r.returncode == 2 and "was given another command line than process 0" in r.stderr
               and json.load(open("ab10.json"))["finished"] is False, f"mpirun A : B ({a} vs {b}): refused, did not finish", r)
    # The same arguments to one program named two ways (argv[0] differs) are one command.
    r = run(MPI + ["-np", "1", ltt, *one, "--tokens", "5", ":", "-np", "1", os.path.relpath(ltt), *one, "--tokens", "5"],
            timeout=90)
    expect(r.returncode == 0, "mpirun with the program named two ways, the same arguments: runs", r)
    # A process that never comes to the first collective (another subcommand) is named by --timeout, not a hang.
    r = run(MPI + ["-np", "1", ltt, *one, "--tokens", "5", ":", "-np", "1", ltt, "check", "--invariance", *SMALL,
                   "--tp", "8", "--tokens", "5"], timeout=90)
    expect(r.returncode not in (0, -9) and r.seconds < 60 and "comparing the processes' command lines" in r.stderr,
           "mpirun A : B where B never comes to the first collective: ended by --timeout, named", r)
    # (j) A report that names ltt's own program is refused; the program kept.
    shutil.copy(ltt, "ltt10")
    before = sha("ltt10")
    r = run([os.path.abspath("ltt10"), "check", *base, "--json", "ltt10"])
    expect(r.returncode == 2 and "is this ltt's own program" in r.stderr and sha("ltt10") == before,
           "a report naming the program: refused", r)
    # (k) --dims takes digits alone, as every integer flag.
    for d in (" 256,128", "+256,128", "256,+128"):
        refused(["check", "--dims", d, "--tp", "8", "--tokens", "5"], "not understood")
    # (l) tier 0's reproduce line after earlier tier-0 cases says that those may be needed.
    r = run([ltt, "check", *SMALL, "--tp", "8", "--tokens", "5", "--tier", "0", "--dist", "realistic,exact",
             "--mutant", "lamport-stale"])
    repro = [ln for ln in r.stdout.splitlines() if "reproduce:" in ln]
    expect(r.returncode == 1 and repro and all("--dist exact" in ln and "Lamport buffers carry over" in ln for ln in repro),
           "lamport-stale fails the case after the first: its reproduce line says the earlier cases may be needed", r)
    # (l2) A relative link in a linked directory is followed as the kernel does: d/l -> ../r.json with d -> x/y
    # names x/r.json, never ./r.json (which a textual '..' gave).
    os.makedirs("x10/y")
    os.symlink("x10/y", "d10")
    os.symlink("../r10b.json", "x10/y/l")
    open("r10b.json", "w").write("keep\n")
    r = run([ltt, "check", *base, "--json", "d10/l"])
    expect(r.returncode == 0 and open("r10b.json").read() == "keep\n"
           and json.load(open("x10/r10b.json"))["finished"] is True, "a relative link in a linked directory", r)
    # (l3) A report whose name is near the file system's limit: its temporary takes a short name, and the
    # report is written (the temporary's name was too long: the run went on to lose its report).
    long = "L" * 250 + ".json"
    r = run([ltt, "check", *base, "--json", long])
    expect(r.returncode == 0 and json.load(open(long))["finished"] is True and not [x for x in os.listdir(".") if ".tmp." in x],
           "a report named near the 255-byte limit is written, no temporary left", r)
    refused(["check", "--invariance", *base, "--transport", "nccl"], "check --invariance does not use --transport")
    # (m) Two reports to /dev/null: nothing is replaced, so both may go there.
    r = run([ltt, "check", *base, "--json", "/dev/null", "--markdown", "/dev/null"])
    expect(r.returncode == 0, "--json and --markdown both /dev/null", r)
    # (n) A run that failed only the ranks check says its elements were all inside their sets.
    r = run([ltt, "check", *base, "--plant", "rank-differs"])
    expect(r.returncode == 1 and "Out of bound values : 0 FAILED (every element inside its set" in r.stdout,
           "the out-of-bound line on a ranks-only failure", r)
    # 11. Found by the thirty-first session.
    # (a) Every report's verdict line names what --ulp-max and --ulp-frac add to it, not the terminal's alone.
    r = run([ltt, "check", *base, "--ulp-max", "1", "--ulp-frac", "0.5", "--markdown", "u11.md", "--html", "u11.html"])
    clause = (", and (--ulp-max) every element within 1 ULP of the emulated reference, and (--ulp-frac) at most 50% of the"
              " elements differing from the emulated reference.")
    expect(r.returncode == 0 and clause in r.stdout and clause in open("u11.md").read() and clause in open("u11.html").read(),
           "the terminal's, the Markdown's and the HTML's verdict lines name the --ulp gates", r)
    r = run([ltt, "check", *base, "--markdown", "u11.md", "--html", "u11.html"])
    expect(r.returncode == 0 and "--ulp" not in open("u11.md").read() and "--ulp" not in open("u11.html").read(),
           "without them, no report names them", r)
    # (b) A report path that is not UTF-8 (JSON holds only UTF-8): the report is written, not an abort (exit 134).
    c11 = a_case("c11")
    t11, m11 = stfile.read(c11)
    stfile.write("o11.safetensors", {"output": t11["expected.tier1"]})
    bad_name = b"r11\xff.json"
    r = run([ltt, "verify", "--case", c11, "--output", "o11.safetensors", "--json", os.fsdecode(bad_name)])
    expect(r.returncode == 0 and json.load(open(bad_name))["finished"] is True, "a --json name that is not UTF-8", r)
    # (c) A FIFO in a directory of cases or outputs is refused by name, not waited on for ever.
    os.makedirs("dc11"), os.makedirs("do11")
    shutil.copy(c11, "dc11")
    os.mkfifo(os.path.join("do11", os.path.basename(c11)))
    r = run([ltt, "verify", "--case", "dc11", "--output", "do11"], timeout=30)
    expect(r.returncode == 2 and "is a FIFO" in r.stderr, "a FIFO among the outputs: refused", r)
    # (d) A case file's expected_exact that is not its inputs' truth, or a tensor no case file holds: refused.
    dt, sh, raw = t11["expected_exact"]
    vals = list(struct.unpack(f"<{len(raw) // 8}d", raw))
    vals[3] *= 1.5
    stfile.write("edit11.safetensors", {**t11, "expected_exact": (dt, sh, struct.pack(f"<{len(vals)}d", *vals))}, m11)
    refused(["verify", "--case", "edit11.safetensors", "--output", "o11.safetensors"],
            "tensor 'expected_exact' is not the float64 truth of the file's inputs: element [0, 3]")
    stfile.write("foo11.safetensors", {**t11, "foo": t11["norm_weight"]}, m11)
    refused(["verify", "--case", "foo11.safetensors", "--output", "o11.safetensors"], "tensor 'foo' is none this case file holds")
    for extra in ("shared.rank8", "routed.rank01", "expected.tier7", "output.tier1.rank8"):  # names near a case file's
        stfile.write("near11.safetensors", {**t11, extra: t11["norm_weight"]}, m11)
        refused(["verify", "--case", "near11.safetensors", "--output", "o11.safetensors"], f"tensor '{extra}' is none")
    # (e) A manifest nested past any manifest's depth (printing it recursed: a segfault), or with a key twice.
    os.makedirs("deep11")
    open("deep11/manifest.json", "w").write('{"files":' + "[" * 100000 + "]" * 100000 + "}")
    refused(["regress", "deep11"], "it nests deeper than 64 levels")
    man = os.path.join(os.path.dirname(c11), "manifest.json")
    text = open(man).read()
    open(man, "w").write(text.replace('"files"', '"ltt_version": "0", "files"', 1))
    refused(["regress", os.path.dirname(c11)], "the key 'ltt_version' is given twice")
    # (f) Numbers: no hexadecimal float (no integer flag takes hex either), -0 is 0, a range's bad end named.
    refused(["simulate", "--copy-GBps", "0x10"], "--copy-GBps '0x10' is not a decimal number")
    refused(["check", *base, "--ulp-max", "0x1p3"], "--ulp-max '0x1p3' is not a decimal number")
    refused(["check", *base, "--eps", "1e-310"], "is below double's normal numbers")
    refused(["simulate", "--tokens", "..4"], "--tokens '..4': its start is not an integer")
    os.symlink("nowhere11", "dangling11")
    refused(["golden", "--out", "dangling11", *SMALL, "--tp", "8", "--tokens", "1"], "--out dangling11 is a link to nowhere11")
    r = run([ltt, "check", *base, "--ulp-max", "-0", "--json", "z11.json"])
    expect(r.returncode == 0 and '"ulp_max": -0.0' not in open("z11.json").read(), "--ulp-max -0 is written as 0", r)
    # 12. Found by the thirty-second session.
    # (a) A name holding a newline stays on its line: the row's note, the reproduce line (bash's $'...', which
    # reruns the same files) and an error message each write it as \n.
    os.makedirs("dc12")
    os.makedirs("do12")
    nl_case = os.path.join("dc12", "a\nb.safetensors")
    shutil.copy(c11, nl_case)
    dt, sh, raw = t11["expected.tier1"]
    bad = bytearray(raw)
    bad[2 * 3 + 1] ^= 0x40  # element [0, 3]'s exponent: far outside its set
    stfile.write("do12/it's\nx.safetensors", {"output": (dt, sh, bytes(bad))})
    r = run([ltt, "verify", "--case", nl_case, "--output", "do12/it's\nx.safetensors"])
    repro = [x for x in r.stdout.splitlines() if x.startswith("#     reproduce: ")]
    expect(r.returncode == 1 and len(repro) == 1 and "--case $'dc12/a\\nb.safetensors' --output $'do12/it\\'s\\nx.safetensors'"
           in repro[0], "a failing case whose files' names hold newlines: one reproduce line, in $'...'", r)
    if repro:
        again = run(["bash", "-c", repro[0][len("#     reproduce: "):]])
        expect(again.returncode == 1 and "# 1 case, 1 failed" in again.stdout,
               "the reproduce line, run by bash, reruns the same files", again)
    os.rename("do12/it's\nx.safetensors", "do12/other.safetensors")
    r = run([ltt, "verify", "--case", "dc12", "--output", "do12"])
    expect(r.returncode == 2 and "no output for case dc12/a\\nb.safetensors: expected do12/a\\nb.safetensors" in r.stderr
           and len(r.stderr.strip().splitlines()) == 1, "an error naming a file with a newline is one line", r)
    shutil.copy("do12/other.safetensors", "do12/a\nb.safetensors")
    os.remove("do12/other.safetensors")
    r = run([ltt, "verify", "--case", "dc12", "--output", "do12"])
    notes = [x for x in r.stdout.splitlines() if x.startswith("#   tier 1 ")]
    expect(r.returncode == 1 and len(notes) == 1 and notes[0].endswith(": case a\\nb.safetensors"),
           "a directory's row note names the case on its one line", r)
    # (b) golden into a folder whose manifest.json is a link: refused, the link kept (it was replaced by a file).
    os.makedirs("ln12")
    os.symlink(os.path.abspath(os.path.join(os.path.dirname(c11), "manifest.json")), "ln12/manifest.json")
    refused(["golden", "--out", "ln12", *SMALL, "--tp", "8", "--tokens", "1"], "ln12/manifest.json is a link (to ")
    expect(os.path.islink("ln12/manifest.json") and os.listdir("ln12") == ["manifest.json"], "the linked manifest is left as it was")
    # (c) --out on a device names what it is (it said "is a file").
    refused(["golden", "--out", "/dev/null", *SMALL, "--tp", "8", "--tokens", "1"], "/dev/null is a character device, not a directory")
    # (d) A mutant name that is none is the parser's refusal: the earlier report is left as it was.
    open("keep12.json", "w").write('{"old": 1}')
    refused(["check", *base, "--mutant", "bogus", "--json", "keep12.json"], "--mutant 'bogus' is not a mutant")
    expect(open("keep12.json").read() == '{"old": 1}', "--mutant bogus touches no file")
    # (e) A passing --variant run says that variants ran, and which member each row shows.
    r = run([ltt, "check", *base, "--variant", "0-3", "--json", "v12.json", "--markdown", "v12.md"])
    cv = json.load(open("v12.json"))["cases"][0] if r.returncode == 0 else {}
    note = "--variant: each case ran 4 random members of its tier's family (4 runs, 0 failed)"
    expect(r.returncode == 0 and note in r.stdout and note in open("v12.md").read()
           and cv.get("variants", {}).get("row_seed") in (0, 1, 2, 3), "a passing --variant run's note and row seed", r)
    # (f) mutants under a ring say that its sets are wider, as check does.
    r = run([ltt, "mutants", *SMALL, "--tp", "8", "--tokens", "5", "--algo", "ring", "--only", "eps-missing", "--json", "mr12.json"])
    notes = json.load(open("mr12.json")).get("notes", []) if os.path.exists("mr12.json") else []
    expect(r.returncode in (0, 1) and "cases reduce by a ring" in r.stdout and len(notes) == 1 and "Ring verdicts are weaker" in notes[0],
           "mutants --algo ring: the ring note, printed and in the JSON", r)
    # (g) A run whose failing case stopped with no output does not say its elements lay inside their sets.
    r = run([ltt, "check", *SMALL, "--tp", "8", "--tokens", "5", "--tier", "0", "--dist", "adversarial", "--mutant", "lamport-neg-zero"])
    expect(r.returncode == 1 and "Out of bound values : 0 FAILED (no element outside its set: the failing case stopped with no output"
           in r.stdout and "every element inside its set" not in r.stdout, "the footer of a stopped run", r)
    # (h) verify reruns nothing: its legends say no rerun; check's do.
    r = run([ltt, "verify", "--case", c11, "--output", "o11.safetensors", "--markdown", "vr12.md", "--html", "vr12.html"])
    r2 = run([ltt, "check", *base, "--markdown", "cr12.md"])
    expect(r.returncode == 0 and "rerun equal" not in r.stdout and "rerun" not in open("vr12.md").read().split("|")[0]
           and "a rerun equal" not in open("vr12.html").read() and "a rerun equal" in open("cr12.md").read()
           and "rerun equal" in r2.stdout, "verify's legends name no rerun, check's do", r)
    # (i) One element outside: its set, in the singular; a flag of another subcommand: named as such.
    dt, sh, raw = t11["expected.tier1"]
    stfile.write("one12.safetensors", {"output": (dt, sh, bytes(bad))})
    r = run([ltt, "verify", "--case", c11, "--output", "one12.safetensors"])
    expect(r.returncode == 1 and "1 element outside its admissible set (" in r.stdout, "one element outside its set", r)
    refused(["selftest", "--json", "x.json"], "ltt selftest: --json is not a flag of selftest: 'ltt selftest --help' lists its flags")
    # (j) golden --hash-only hashes, it writes nothing; a name longer than the column keeps the rows in line.
    r = run([ltt, "golden", "--out", "h12", "--hash-only", "--dims", "1024,512", "--tp", "8", "--tokens", "1", "--tier", "1",
             "--eps", "1.5e-05", "--dist", "realistic"], timeout=300)
    lines = [x for x in r.stdout.splitlines() if x.startswith("#") and "file" in x.split()[:2] or x.startswith("  H1024")]
    expect(r.returncode == 0 and "# hashed 1 set," in r.stdout and len(lines) == 2 and len(lines[0]) == len(lines[1]),
           f"golden --hash-only says hashed; its rows line up: {lines}", r)
    # 13. Found by the forty-ninth session, a review that made verify's inputs by hand.
    c13 = a_case("c13")
    t13, m13 = stfile.read(c13)
    stfile.write("o13.safetensors", {"output": t13["expected.tier1"]})
    # (a) A one-shot case relabelled ring: its expected output is ltt's one-shot reference, not its ring one; refused
    # (a ring's wider sets would pass outputs that the file's data fail). A case made ring passes its own output.
    expect(m13.get("algo") == "one-shot", f"c13 is one-shot: {m13}")
    stfile.write("ring13.safetensors", t13, {**m13, "algo": "ring"})
    refused(["verify", "--case", "ring13.safetensors", "--output", "o13.safetensors"],
            "its metadata say algo ring, but tensor 'expected.tier1' is bitwise ltt's one-shot reference")
    subprocess.run([ltt, "golden", "--out", "g13", *SMALL, "--tp", "8", "--tokens", "5", "--dist", "realistic", "--tier", "1",
                    "--algo", "ring"], check=True, stdout=subprocess.DEVNULL)
    gr13 = os.path.join("g13", [x for x in os.listdir("g13") if x.endswith(".safetensors")][0])
    tg, mg = stfile.read(gr13)
    stfile.write("og13.safetensors", {"output": tg["expected.tier1"]})
    r = run([ltt, "verify", "--case", gr13, "--output", "og13.safetensors"])
    expect(r.returncode == 0 and mg.get("algo") == "ring" and tg["expected.tier1"] != t13["expected.tier1"],
           "a ring case (its output unlike one-shot's) and its own output: a pass", r)
    # (b) A NUL in a header ends nlohmann's reading, not the header: refused, as Python's json and safetensors refuse it.
    good = stfile.serialise({"output": t13["expected.tier1"]})
    (n,) = struct.unpack("<Q", good[:8])
    head = good[8:8 + n].rstrip(b" ") + b"\0 not {{ json"
    head += b" " * (-len(head) % 8)
    open("nul13.safetensors", "wb").write(struct.pack("<Q", len(head)) + head + good[8 + n:])
    refused(["verify", "--case", c13, "--output", "nul13.safetensors"], "a NUL byte, which JSON text never holds")
    # (c) Names like a case file's that no case file of T 8 holds are named as not read; the case's own are not.
    one = ("BF16", [1], b"\0\0")
    stfile.write("names13.safetensors", {"output": t13["expected.tier1"], "expected.tier9": one, "routed.rank00": one,
                                         "routed.rank8": one, "routed.rank7": t13["routed.rank7"], "norm_weight": t13["norm_weight"]})
    r = run([ltt, "verify", "--case", c13, "--output", "names13.safetensors"])
    line = [x for x in r.stdout.splitlines() if "not read" in x]
    expect(r.returncode == 0 and len(line) == 1 and all(x in line[0] for x in ("expected.tier9", "routed.rank00", "routed.rank8"))
           and "rank7" not in line[0] and "norm_weight" not in line[0], f"case-like names not read, named: {line}", r)
    # (d) A loop of links, or a name too long, is said as such (it was an escaped exception: "this is a bug in ltt").
    os.symlink("loop13.safetensors", "loop13.safetensors")
    for args in (["--case", c13, "--output", "loop13.safetensors"], ["--case", "loop13.safetensors", "--output", "o13.safetensors"]):
        r = refused(["verify", *args], "loop13.safetensors: a loop of symbolic links")
        expect("internal error" not in r.stderr, "a loop of links is no internal error", r)
    r = refused(["verify", "--case", c13, "--output", "a" * 300 + ".safetensors"], "longer than the file system allows")
    expect("internal error" not in r.stderr, "a name too long is no internal error", r)
    os.makedirs("dc13"), os.makedirs("do13")
    shutil.copy(c13, "dc13")
    loop = os.path.join("do13", os.path.basename(c13))
    os.symlink(os.path.basename(c13), loop)
    r = refused(["verify", "--case", "dc13", "--output", "do13"], "a loop of symbolic links")
    expect("which does not exist" not in r.stderr, "a loop of links in a directory is not called a link to nothing", r)
    # (e) A FIFO that nothing writes yet: ltt says what it waits for (it was silent for ever), then reads the writer's file.
    os.mkfifo("fifo13.safetensors")
    p, said = waiting(["verify", "--case", c13, "--output", "fifo13.safetensors"], "fifo13.err", "waiting for a program to write",
                      stdout=subprocess.PIPE)
    expect("waiting for a program to write fifo13.safetensors, a FIFO that nothing has written yet" in said,
           f"a FIFO with no writer is said within 30 s: {said!r}")
    with open("fifo13.safetensors", "wb") as w:
        w.write(good)
    out13 = ended(p)
    expect(p.returncode == 0 and "# 1 case, 0 failed" in out13, f"the FIFO's file, once written, verifies: exit {p.returncode} {out13[-300:]}")
    # (f) A lower-case dtype says how safetensors spells it; a shape of 100,000 dimensions is not quoted whole.
    stfile.write("dt13.safetensors", {"output": ("bf16", [5, 256], t13["expected.tier1"][2])})
    refused(["verify", "--case", c13, "--output", "dt13.safetensors"], "unknown dtype 'bf16' (safetensors' dtype names are upper case: 'BF16')")
    stfile.write("sh13.safetensors", {"output": ("BF16", [1] * 100000, b"\0\0")})
    r = refused(["verify", "--case", c13, "--output", "sh13.safetensors"], "has shape [1, 1, 1, 1, 1, 1, 1, 1, ...] (100000 dimensions)")
    expect(len(r.stderr) < 2000, f"the shape's message is short: {len(r.stderr)} characters", r)
    # (g) simulate's --machine, a FIFO nothing writes yet: the wait is said (it was silent), then the file is read.
    os.mkfifo("m13.json")
    p, said = waiting(["simulate", "--machine", "m13.json", "--tp", "8", "--tokens", "1"], "m13.err", "waiting for a program to write",
                      stdout=subprocess.PIPE)
    expect("waiting for a program to write m13.json, a FIFO" in said, f"--machine FIFO: the wait is said: {said!r}")
    with open("m13.json", "w") as w:
        w.write(open(os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "bench", "machines", "h200.json")).read())
    out13 = ended(p)
    expect(p.returncode == 0 and "tier" in out13, f"--machine FIFO, once written, is read: exit {p.returncode}")
    # (h) A report sent to a FIFO nothing reads: the wait is said, then a reader gets the whole report.
    os.mkfifo("r13.json")
    p, said = waiting(["verify", "--case", c13, "--output", "o13.safetensors", "--json", "r13.json"], "r13.err",
                      "waiting for a program to read", stdout=subprocess.DEVNULL)
    expect("waiting for a program to read --json r13.json, a FIFO that nothing reads yet" in said,
           f"--json FIFO with no reader: the wait is said: {said!r}")
    got = open("r13.json").read()
    ended(p)
    expect(p.returncode == 0 and json.loads(got).get("finished") is True, f"--json FIFO, once read: exit {p.returncode}")
    # (i) A report path or --out that is a loop of links: refused naming the flag, the links left as they were
    # (a report replaced the link by a file, exit 0).
    os.symlink("lb13", "la13")
    os.symlink("la13", "lb13")
    refused(["verify", "--case", c13, "--output", "o13.safetensors", "--json", "la13"], "--json la13: a loop of symbolic links")
    refused(["simulate", "--tp", "8", "--tokens", "1", "--svg", "la13"], "--svg la13: a loop of symbolic links")
    refused(["golden", "--out", "la13", *SMALL, "--tp", "8", "--tokens", "1"], "--out la13: a loop of symbolic links")
    expect(os.path.islink("la13") and os.readlink("la13") == "lb13" and os.readlink("lb13") == "la13", "the loop's links are kept")
    # (j) A machine file whose name or source is not a string: the key is named (the type error named none).
    machine = json.load(open(os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "bench", "machines",
                                          "h200.json")))
    for key in ("name", "source"):
        json.dump({**machine, key: 5}, open("n13.json", "w"))
        refused(["simulate", "--machine", "n13.json", "--tp", "8", "--tokens", "1"], f"n13.json: '{key}' is 5, not a string")
    # 14. Found by the fiftieth session, a review of the flags and reports.
    # (a) The reproduce line (and the gate's header) printed --ulp-frac, --ulp-max and --eps to six digits:
    # the command it gave judged another threshold or case (exit 0 or 2 where the run failed).
    one = ["--dims", "small", "--tp", "8", "--tokens", "5", "--dist", "realistic"]
    for tier, gate, value in (("3", "--ulp-frac", "0.04218749"), ("1", "--ulp-max", "1.9999999")):
        r = run([ltt, "check", "--tier", tier, *one, "--variant", "10", gate, value])
        line = [x for x in r.stdout.splitlines() if "reproduce:" in x]
        expect(r.returncode == 1 and len(line) >= 1 and f"{gate} {value}" in line[0], f"{gate} {value}: the reproduce line keeps it", r)
        if line:
            again = run(line[0].split("reproduce:", 1)[1].strip().split())
            expect(again.returncode == 1, f"{gate} {value}: the reproduce command fails again", again)
    r = run([ltt, "check", "--tier", "1", *one, "--eps", "0.001234444", "--plant", "rank-differs"])
    expect(r.returncode == 1 and "--eps 0.001234444 " in r.stdout, "--eps 0.001234444: the reproduce line keeps it", r)
    r = refused(["check", *one, "--eps", "2.5e-29"], "use eps >= 2.524354896707238e-29")
    expect(run([ltt, "check", "--tier", "1", *one, "--eps", "2.524354896707238e-29"]).returncode == 0, "the floor the message gives is taken")
    # (b) A flag without its value took the next flag as its path: the JSON went to a file named --markdown, exit 0.
    os.makedirs("f14", exist_ok=True)
    refused(["check", "--tier", "1", *one, "--json", "--markdown"], "--json takes a value, and the word after it is the flag --markdown",
            what="--json --markdown: refused")
    refused(["simulate", "--tp", "8", "--tokens", "1", "--svg", "--fake"], "--svg takes a value, and the word after it is the flag --fake")
    expect(not os.path.exists("--markdown") and not os.path.exists("--fake"), "no file named after the flag")
    r = run([ltt, "check", "--tier", "1", *one, "--json=f14/--markdown"])
    expect(r.returncode == 0 and os.path.exists("f14/--markdown"), "--json=VALUE names a file spelt like a flag", r)
    # (c) simulate refused a what-if at an end of its range (--copy-GBps 1e9, --link-us 1e-20) as read by no prediction,
    # though it moves them: the probe scaled the given value by 1000, where nothing moves any more.
    base = run([ltt, "simulate", "--tp", "8", "--tokens", "1"])
    for what in (["--copy-GBps", "1e9"], ["--link-us", "1e-20"], ["--nccl-us", "1e-20"]):
        r = run([ltt, "simulate", "--tp", "8", "--tokens", "1", *what])
        expect(r.returncode == 0, f"simulate {' '.join(what)}: a figure the predictions read is taken", r)
    r = run([ltt, "simulate", "--tp", "8", "--tokens", "1", "--copy-GBps", "1e9"])
    rows = [[x for x in q.stdout.splitlines() if not x.startswith("#")] for q in (base, r)]
    expect(rows[0] and rows[0] != rows[1], "--copy-GBps 1e9 moves a prediction", r)
    # (d) check --mutant on tiers it does not act on: those rows were plain passes, unsaid (the JSON too).
    r = run([ltt, "check", *one, "--tier", "1,2", "--mutant", "tier1-own-s", "--json", "f14/mu.json"])
    notes = json.load(open("f14/mu.json")).get("notes", []) if os.path.exists("f14/mu.json") else []
    said = "--mutant tier1-own-s acts on tier 1: tier 2 ran unplanted"
    expect(said in r.stdout and any(said in n for n in notes), "the tiers a mutant does not act on are said to run unplanted", r)

    # 15. Found by the fiftieth session's reviews, mended in the fifty-first.
    # (a) --algo at T 1, where one rank reduces nothing: the rows were labelled ring, unsaid.
    t1 = ["--dims", "small", "--tokens", "5", "--dist", "realistic", "--algo", "ring"]
    refused(["check", "--tp", "1", *t1], "--algo ring with --tp 1: one rank reduces nothing")
    refused(["mutants", "--tp", "1", *t1], "--algo ring with --tp 1: one rank reduces nothing")
    r = run([ltt, "check", "--tp", "1,8", "--tier", "1", *t1])
    expect(r.returncode == 0 and "--algo ring: T 1 has one rank, which reduces nothing" in r.stdout, "--tp 1,8 --algo ring: T 1 said", r)
    # (b) simulate: a what-if that the run reads but whose value moves no prediction from the machine's own figure
    # (--gpus-per-node 1024 where T 8 fits the machine's 8-GPU node) is said; one that moves them is not.
    r = run([ltt, "simulate", "--tp", "8", "--tokens", "1,128", "--gpus-per-node", "1024", "--json", "f14/g.json"])
    unmoved = json.load(open("f14/g.json")).get("what_ifs_unmoved", []) if os.path.exists("f14/g.json") else []
    expect(r.returncode == 0 and "--gpus-per-node 1024 moves no prediction of this run from the machine's own 8" in r.stdout
           and len(unmoved) == 1, "--gpus-per-node 1024 at T 8: said to move nothing", r)
    r = run([ltt, "simulate", "--tp", "8", "--tokens", "1,128", "--gpus-per-node", "4"])
    expect(r.returncode == 0 and "moves no prediction" not in r.stdout and "(2 nodes)" in r.stdout, "--gpus-per-node 4 at T 8 moves", r)
    # (c) simulate --fake: its header printed link, NCCL and network figures that no fake-rank prediction reads.
    r = run([ltt, "simulate", "--tp", "8", "--tokens", "1", "--fake"])
    head = "\n".join(x for x in r.stdout.splitlines() if x.startswith("# copy"))
    expect(r.returncode == 0 and "no link, NCCL or network figure is read" in head and "GPUs per node" not in head
           and "NCCL 20" not in head, "simulate --fake: no figures between GPUs in its header", r)
    # (d) The parser's refusals: a backwards range said as such; words in order for a short flag; --version with
    # a command; a value's newline escaped and the refusal's file and line given; --dump-dir - (no folder "-").
    r = refused(["check", "--variant", "5-3"], "'5-3' runs backwards: give the lower seed first (3-5)")
    expect(re.search(r"\(\S*flags\.cpp:\d+\)", r.stderr) is not None, "a parser refusal ends with its file and line", r)
    refused(["check", "-t", "8"], "-t is not a flag of check")
    refused(["check", "--tp", "8", "-x"], "-x is not a flag of check")
    r = run([ltt, "check", "--tp", "8", "--eps", "-1"])
    expect(r.returncode == 2 and "--eps '-1' is out of range" in r.stderr, "a negative value is a value, not a flag", r)
    refused(["--version", "check"], "--version takes nothing after it, and 'check' follows")
    r = refused(["check", "--dims", "sm\nall"], "--dims 'sm\\nall' not understood")
    expect(len(r.stderr.splitlines()) == 2, "a value's newline is escaped: the refusal keeps its lines", r)
    os.makedirs("f15", exist_ok=True)
    r = run([ltt, "check", "--tier", "1", *one, "--mutant", "tier1-own-s", "--dump-dir", "-"], cwd="f15")
    expect(r.returncode == 2 and "--dump-dir -: files go into a folder" in r.stderr and not os.path.exists("f15/-"),
           "--dump-dir - refused, no folder '-' made", r)

    # 16. Found by the fifty-first session's review of the report files.
    os.makedirs("f16", exist_ok=True)
    os.chdir("f16")
    # (a) NaN outputs: the JSON's error figures said 0 ("inside the bound") where the table says inf; a stopped
    # case's figures read as a perfect output (0) where it has none (null).
    r = run([ltt, "check", "--dims", "small", "--tp", "8", "--tokens", "1,5", "--dist", "realistic", "--tier", "1",
             "--mutant", "last-row-unwritten", "--json", "nan.json"])
    cases = json.load(open("nan.json"))["cases"] if os.path.exists("nan.json") else []
    expect(r.returncode == 1 and len(cases) == 2 and all(c["vs_truth"]["nonfinite_mismatch"] > 0 and c["vs_truth"]["max_err_over_bound"] == "inf"
                                                         and c["vs_truth"]["max_abs"] == "inf" and c["vs_truth"]["p999_err_over_bound"] == "inf"
                                                         for c in cases[:1]) and cases[1]["vs_truth"]["max_err_over_bound"] == "inf",
           f"NaN outputs: the JSON's err/bnd is inf, as the table's: {[c['vs_truth'] for c in cases]}", r)
    r = run([ltt, "check", "--dims", "small", "--tp", "8", "--tokens", "33", "--dist", "adversarial", "--tier", "0",
             "--mutant", "lamport-neg-zero", "--json", "stop.json"])
    c = json.load(open("stop.json"))["cases"][0] if os.path.exists("stop.json") else {}
    expect(c.get("stopped") and c.get("elements") is None and c["admissible"]["steps_max"] is None and c["vs_truth"]["max_err_over_bound"] is None
           and c["vs_emulated"]["ulp_max"] is None and c["vs_emulated"]["frac_differ"] is None,
           f"a stopped case's figures are null: {c.get('elements')}, {c.get('vs_truth')}", r)
    # (c) regress --html: a refused run left the earlier page's "pass" beside a drift.
    run([ltt, "golden", "--out", "gs", "--dims", "small", "--tp", "8", "--tokens", "1,5", "--dist", "realistic"])
    r = run([ltt, "regress", "gs", "--html", "rg.html"])
    first = open("rg.html").read() if os.path.exists("rg.html") else ""
    m = json.load(open("gs/manifest.json"))
    for e in m["files"]:
        if "_M5_" in e["file"]:
            e["metadata"]["seed"] = "0x"
    json.dump(m, open("gs/manifest.json", "w"))
    r = run([ltt, "regress", "gs", "--html", "rg.html"])
    page = open("rg.html").read()
    expect("ltt regress: pass" in first and r.returncode == 2 and "did not finish" in page and "pass</h1>" not in page,
           "regress --html refused part way: the page says it did not finish", r)
    # (d) verify refused part way (a case file edited) kept 1 of the cases it had judged in its JSON and Markdown.
    run([ltt, "golden", "--out", "g3", "--dims", "small", "--tp", "8", "--tokens", "1,5,33", "--dist", "realistic"])
    os.makedirs("vc", exist_ok=True)
    os.makedirs("vo", exist_ok=True)
    for name in sorted(os.listdir("g3")):
        if not name.endswith(".safetensors"):
            continue
        t, meta = stfile.read(os.path.join("g3", name))
        stfile.write(os.path.join("vc", name), t, meta)
        stfile.write(os.path.join("vo", name), {f"output.tier{k[len('expected.tier'):]}.rank{r}": v for k, v in t.items()
                                                 if k.startswith("expected.tier") for r in range(int(meta["tp"]))})
    edited = os.path.join("vc", "H256_L128_T8_M5_realistic_seed0_one-shot_declared.safetensors")
    t, meta = stfile.read(edited)
    d, sh, b = t["expected.tier3"]
    t["expected.tier3"] = (d, sh, bytes([b[0], b[1] ^ 0x40]) + b[2:])
    stfile.write(edited, t, meta)
    r = run([ltt, "verify", "--case", "vc", "--output", "vo", "--json", "v.json", "--markdown", "v.md"])
    rows = [x for x in r.stdout.splitlines() if x.startswith("     ")]
    jcases = json.load(open("v.json"))["cases"] if os.path.exists("v.json") else []
    expect(r.returncode == 2 and len(rows) > 1 and len(jcases) == len(rows) and f"{len(rows)} of " in open("v.md").read().splitlines()[0],
           f"verify refused part way keeps every judged case: {len(rows)} rows, {len(jcases)} in the JSON", r)
    # (b) A report written in place (the file has another link) past a file-size limit (as on a full disk): it was
    # left cut short, invalid JSON; now the write is refused before the earlier file is touched (verify: no MPI,
    # whose shared memory the limit would refuse).
    open("inplace.json", "w").write('{"old": 1}\n')
    os.link("inplace.json", "inplace-link.json")
    def small_files():
        resource.setrlimit(resource.RLIMIT_FSIZE, (4096, 4096))
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    r = run([ltt, "verify", "--case", "g3", "--output", "vo", "--json", "inplace.json"], preexec_fn=small_files)
    try:
        kept = json.load(open("inplace-link.json"))
    except ValueError as e:
        kept = {"invalid": str(e)}
    expect(r.returncode == 2 and "the file is left as it was" in r.stderr and kept.get("finished") is False,
           f"an in-place report that cannot be written whole is left as it was: {kept}", r)
    # (e) A path that is no UTF-8: the reproduce line (JSON) reruns the same file; the HTML and Markdown are UTF-8.
    case5 = os.path.join("g3", "H256_L128_T8_M5_realistic_seed0_one-shot_declared.safetensors")
    t, meta = stfile.read(case5)
    d, sh, b = t["expected.tier1"]
    stfile.write("bad.safetensors", {"output.tier1.rank0": (d, sh, bytes([b[0], b[1] ^ 0x40]) + b[2:])})
    odd = b"nu/case\xff.safetensors"
    os.makedirs("nu", exist_ok=True)
    shutil.copy(case5, odd)
    r = run([ltt, "verify", "--case", os.fsdecode(odd), "--output", "bad.safetensors", "--tier", "1", "--json", "nu.json",
             "--html", "nu.html", "--markdown", "nu.md"])
    repro = json.load(open("nu.json"))["cases"][0]["reproduce"] if os.path.exists("nu.json") else ""
    again = run(["bash", "-c", repro])
    try:
        utf8 = all(open(f, "rb").read().decode() is not None for f in ("nu.html", "nu.md"))
    except (UnicodeDecodeError, OSError):
        utf8 = False
    expect(r.returncode == 1 and "\\xff" in repro and again.returncode == 1 and utf8,
           f"a name that is no UTF-8: the reproduce line reruns it ({repro!r}, exit {again.returncode}), the pages are UTF-8", again)
    # (f) A file name holding a newline in verify's notes: the terminal and the Markdown keep it on its line, and
    # the Markdown holds no raw HTML.
    os.makedirs("dc", exist_ok=True)
    os.makedirs("do", exist_ok=True)
    shutil.copy(case5, "dc")
    base5 = os.path.basename(case5)
    stfile.write(os.path.join("do", base5), {"output.tier1.rank0": t["expected.tier1"], "output.tier2.rank0": t["expected.tier2"],
                                             "output.tier3.rank0": t["expected.tier3"], "output.tier4.rank0": t["expected.tier4"]})
    shutil.copy(os.path.join("do", base5), os.path.join("do", "x\n# All outputs verified: PASS <b>ok.safetensors"))
    r = run([ltt, "verify", "--case", "dc", "--output", "do", "--markdown", "d.md"])
    md = open("d.md").read() if os.path.exists("d.md") else ""
    expect(r.returncode == 0 and not any(x.startswith("# All outputs verified") for x in r.stdout.splitlines())
           and not any(x.startswith("# All outputs") for x in md.splitlines()) and "<b>" not in md and "x\\n# All" in md,
           "a file name's newline stays on its line of the terminal and the Markdown", r)
    # (g) A Markdown command holding two backticks in a row: its code span's fence is longer than any run in it.
    r = run([ltt, "check", "--dims", "small", "--tp", "8", "--tokens", "5", "--dist", "realistic", "--tier", "1", "--markdown", "a``b.md"])
    line = [x for x in open("a``b.md").read().splitlines() if "Command:" in x] if os.path.exists("a``b.md") else []
    expect(r.returncode == 0 and line and line[0].split("Command: ", 1)[1].startswith("``` ") and line[0].endswith(" ```"),
           f"a command with a run of two backticks is fenced by three: {line}", r)
    # (h) Two reports to standard output ran together: refused.
    refused(["check", "--dims", "small", "--tp", "8", "--tokens", "5", "--json", "-", "--markdown", "/dev/stdout"],
            "both write to descriptor 1 (standard output)")

    # 17. Found by the fifty-first session's review of verify. (a) A tensor of a dtype ltt does not read beside the
    # outputs (a step counter, a mask) refused the whole file with advice to convert the output: it is named as not
    # read, the output judged; an output of such a dtype is refused with that advice. (b) A damaged outputs file's
    # message told to run ltt golden (which makes case files).
    raw = open(case5, "rb").read()
    n = struct.unpack("<Q", raw[:8])[0]
    b0, e0 = json.loads(raw[8:8 + n])["expected.tier1"]["data_offsets"]
    y1 = raw[8 + n + b0:8 + n + e0]
    def outputs_file(name, entries, body):
        head = json.dumps(entries).encode()
        head += b" " * (-len(head) % 8)
        open(name, "wb").write(struct.pack("<Q", len(head)) + head + body)
    out1 = {"output.tier1.rank0": {"dtype": "BF16", "shape": [5, 256], "data_offsets": [0, len(y1)]}}
    for dt, extra in (("I64", struct.pack("<q", 3)), ("BOOL", b"\x01")):
        outputs_file(f"x{dt}.safetensors", {**out1, "step": {"dtype": dt, "shape": [], "data_offsets": [len(y1), len(y1) + len(extra)]}},
                     y1 + extra)
        r = run([ltt, "verify", "--case", case5, "--output", f"x{dt}.safetensors"])
        expect(r.returncode == 0 and f"not read (neither an output nor a case file's tensor): step ({dt})" in r.stdout,
               f"an extra {dt} tensor is named, the output judged", r)
    outputs_file("f16.safetensors", {"output.tier1.rank0": {"dtype": "F16", "shape": [5, 256], "data_offsets": [0, len(y1)]}}, y1)
    refused(["verify", "--case", case5, "--output", "f16.safetensors"], "tensor 'output.tier1.rank0' is F16: outputs to verify are BF16 or F32")
    open("cut.safetensors", "wb").write(open("xI64.safetensors", "rb").read()[:100])
    r = refused(["verify", "--case", case5, "--output", "cut.safetensors"], "write the outputs again")
    expect("ltt golden makes case files" not in r.stderr, "a damaged outputs file is not sent to ltt golden", r)
    # (c) A header of 200,000 tensors (14 MB, which safetensors allows) ran for many minutes: reading it rescanned
    # the header at each tensor's end. Linear now (a few seconds; the limit is there to end the old, not to time).
    many = {**out1, **{f"aux{i}": {"dtype": "F32", "shape": [0], "data_offsets": [len(y1), len(y1)]} for i in range(200000)}}
    outputs_file("many.safetensors", many, y1)
    r = run([ltt, "verify", "--case", case5, "--output", "many.safetensors"], timeout=300)
    expect(r.returncode == 0 and "and 199996 more" in r.stdout, "a header of 200,000 tensors is read (it ran for many minutes)", r)

    # 18. Found by the fifty-second session's review of selftest, check and bench. (a) At T 1, L <= 64, a member that
    # flushes (FTZ with DAZ) reads the adversarial subnormal row as zeros: 8 of 10 random members failed.
    r = run([ltt, "check", "--dims", "16,16", "--tp", "1", "--tokens", "33", "--dist", "adversarial", "--variant", "0-9"])
    expect(r.returncode == 0 and "(40 runs, 0 failed)" in r.stdout, "flushing members pass at T 1 on subnormal rows", r)
    # (b) A case whose exact output rounds to zero: the correct all-zero output failed as all zero (selftest: FAIL
    # with every column fine and no reason).
    zero = ["--dims", "1,1", "--tp", "1", "--tokens", "1", "--dist", "exact", "--seed", "3080"]
    for sub in ("selftest", "check"):
        r = run([ltt, sub, *zero])
        expect(r.returncode == 0 and "0 failed" in r.stdout, f"{sub}: zeros that are right pass", r)
    r = run([ltt, "check", *zero, "--json", "z.json"])
    cases = json.load(open("z.json"))["cases"] if r.returncode == 0 else []
    expect(cases and all(c["vs_truth"]["max_abs"] > 0 and c["pass"] for c in cases), "the zero output differs from the truth, "
           "within its sets (the case tests what it claims)", r)
    # (c) The reproduce line of a failure at T 1 named --algo, which ltt refuses there.
    r = run([ltt, "check", *SMALL, "--tp", "1", "--tokens", "5", "--dist", "realistic", "--tier", "1", "--mutant", "g-missing"])
    line = [x.split("reproduce: ", 1)[1] for x in r.stdout.splitlines() if "reproduce: " in x]
    r2 = subprocess.run(shlex.split(line[0]), capture_output=True, text=True) if line else None
    expect(r.returncode == 1 and line and "--algo" not in line[0] and r2.returncode == 1 and "1 failed" in r2.stdout,
           "the reproduce line at T 1 runs and fails again", r)
    # (d) selftest --algo at T 1 is refused, as check refuses it; the one-shot bound at T 1 no longer counts a
    # rounding of Z that never happens (its err/bound equals the ring's, which counted none).
    refused(["selftest", *SMALL, "--tp", "1", "--tokens", "1", "--algo", "ring"], "--algo ring with --tp 1: one rank reduces nothing")
    ratio = {}
    for algo in ("one-shot", "ring"):
        r = run([ltt, "check", *SMALL, "--tp", "1,2", "--tokens", "5", "--dist", "exact", "--tier", "1", "--algo", algo,
                 "--json", f"b{algo}.json"])
        js = json.load(open(f"b{algo}.json"))["cases"] if r.returncode == 0 else []
        ratio[algo] = [c["vs_truth"]["max_err_over_bound"] for c in js if c["tp"] == 1]
    expect(ratio["one-shot"] and ratio["one-shot"] == ratio["ring"], f"T 1's err/bound is the same under either --algo: {ratio}", r)
    # (e) Under mpirun, a process other than 0 that refuses its command line (mpirun's A : B form) said nothing.
    ok_args = [ltt, "check", *SMALL, "--tp", "2", "--tokens", "1", "--dist", "realistic"]
    r = run([*MPI, "-np", "1", *ok_args, ":", "-np", "1", *ok_args, "--tier", "9"], timeout=60)
    expect(r.returncode != 0 and "process 1 of 2 refuses its command line" in r.stderr and "--tier '9'" in r.stderr,
           "process 1's refusal is said", r)
    r = run([*MPI, "-np", "2", *ok_args, "--tier", "9"], timeout=60)
    expect(r.returncode != 0 and r.stderr.count("--tier '9'") == 1, "the same refusal on every process is said once", r)
    os.chdir("..")
else:
    sys.exit(f"unknown class {cls}")

for f in failures:
    print("FAILED:", f)
print(f"{cls}: {checks - len(failures)} of {checks} checks passed")
sys.exit(1 if failures else 0)
