"""The package's machinery: the binary, safetensors files, cases, verdicts."""
import hashlib
import json
import operator
import os
import shlex
import shutil
import struct
import subprocess
import tempfile
import time
import weakref

import numpy as np


class LttError(RuntimeError):
    """ltt refused the request (bad input, exit 2) or could not run."""


_HOW = "set LTT=/path/to/ltt (build/release/bin/ltt of a built checkout) or put ltt on PATH"


def binary():
    """The ltt binary: $LTT, else `ltt` on PATH, else build/release/bin/ltt of the checkout when the
    package is imported from one (python/ltt in a tree with build/), not from an installed copy."""
    env = os.environ.get("LTT")
    if env:
        found = shutil.which(env)
        if not found:
            why = "is not an executable file" if os.path.exists(env) else "does not exist"
            raise LttError(f"$LTT={env} {why}: {_HOW}")
        return found
    on_path = shutil.which("ltt")
    if on_path:
        return on_path
    pkg = os.path.dirname(os.path.abspath(__file__))
    root = os.path.dirname(os.path.dirname(pkg))
    if os.path.basename(os.path.dirname(pkg)) == "python" and os.path.isdir(os.path.join(root, "build")):
        guess = os.path.join(root, "build", "release", "bin", "ltt")
        if shutil.which(guess):
            return guess
        checkout = f"no executable {guess}"
    else:
        checkout = f"no checkout's build/ (the package is imported from {pkg}, not from python/ltt of a built checkout)"
    raise LttError(f"no ltt binary: $LTT is unset, no ltt on PATH, {checkout}; {_HOW}")


def _run(args, what=None, hide=None):
    """Runs ltt with args; exit 2 is an LttError opening with `what` (else the command) and with the
    folder `hide` (a temporary one, gone once the error is read) said as "the output" in ltt's words."""
    exe = binary()
    try:
        # ltt echoes paths, which Linux lets hold any byte: one that is not UTF-8 is shown escaped (\\xff).
        r = subprocess.run([exe, *args], capture_output=True, text=True, errors="backslashreplace")
    except OSError as e:
        raise LttError(f"could not run {exe}: {e}; {_HOW}") from None
    if r.returncode == 2:
        why = r.stderr.strip() or r.stdout.strip()
        if hide:
            why = why.replace(os.path.join(hide, "output.safetensors"), "the output").replace(hide, "the output's folder")
        raise LttError(f"{what or 'ltt ' + ' '.join(args)}: {why}")
    return r


# --- safetensors (the format of DESIGN.md section 6) ---

_DTYPES = {"BF16": 2, "F32": 4, "F64": 8}


def _once(pairs):
    """A JSON object whose keys are each given once (json.loads keeps the last of a key given twice; ltt refuses it)."""
    seen = {}
    for k, v in pairs:
        if k in seen:
            raise ValueError(f"its header gives {k!r} twice")
        seen[k] = v
    return seen


def _read(path, dtypes=None):
    """A safetensors file's tensors and metadata; a file that is not one is an LttError naming why.
    `dtypes`, a dict, receives each tensor's dtype as the file names it (BF16, F32, F64)."""
    try:
        raw = open(path, "rb").read()
    except OSError as e:
        raise LttError(f"{path}: cannot read it: {e.strerror or e}") from None
    try:
        (n,) = struct.unpack("<Q", raw[:8])
        if n > len(raw) - 8:
            raise ValueError(f"its header claims {n} bytes, the file holds {len(raw) - 8} after the length")
        header = json.loads(raw[8:8 + n].decode("utf-8"), object_pairs_hook=_once)
        if not isinstance(header, dict):
            raise ValueError("its header is not a JSON object")
    except (struct.error, ValueError, UnicodeDecodeError) as e:
        raise LttError(f"{path}: not a safetensors file ({e})") from None
    except RecursionError:  # JSON nested past the interpreter's stack: no header of ltt's
        raise LttError(f"{path}: not a safetensors file (its header nests too deep to read)") from None
    meta = header.pop("__metadata__", {})
    if not isinstance(meta, dict) or not all(isinstance(v, str) for v in meta.values()):
        raise LttError(f"{path}: not a safetensors file (its __metadata__ is not an object of strings)")
    data = raw[8 + n:]
    out = {}

    def ints(v, k):  # a list of k non-negative integers (JSON's, not bools), else None
        ok = isinstance(v, list) and (k is None or len(v) == k) and \
            all(isinstance(x, int) and not isinstance(x, bool) and x >= 0 for x in v)
        return v if ok else None

    for name, t in header.items():
        offsets = ints(t.get("data_offsets"), 2) if isinstance(t, dict) else None
        shape = ints(t.get("shape"), None) if isinstance(t, dict) else None
        if offsets is None or shape is None:
            raise LttError(f"{path}: not a safetensors file (tensor {name!r}'s header entry {repr(t)[:200]} lacks a shape "
                           "and data_offsets [begin, end] of non-negative integers)")
        b, e = offsets
        if t.get("dtype") not in _DTYPES:
            raise LttError(f"{path}: tensor {name!r} is {t.get('dtype')}: ltt reads BF16, F32 and F64 tensors")
        if not (0 <= b <= e <= len(data)) or \
                e - b != _DTYPES[t["dtype"]] * int(np.prod(shape, dtype=np.int64)):
            raise LttError(f"{path}: tensor {name!r} ({t.get('dtype')}, shape {t.get('shape')}, bytes {b}..{e} of "
                           f"{len(data)}): not a BF16, F32 or F64 tensor the file holds whole (cut short?)")
        buf = data[b:e]
        if t["dtype"] == "BF16":
            bits = np.frombuffer(buf, dtype="<u2").astype(np.uint32) << 16
            arr = bits.view(np.float32)
        elif t["dtype"] == "F32":
            arr = np.frombuffer(buf, dtype="<f4").copy()
        else:
            arr = np.frombuffer(buf, dtype="<f8").copy()
        out[name] = arr.reshape(t["shape"])
        if dtypes is not None:
            dtypes[name] = t["dtype"]
    # The tensors tile the data section, as ltt requires: no overlap, no gap, no trailing bytes.
    pos = 0
    for b, e, name in sorted((t["data_offsets"][0], t["data_offsets"][1], name) for name, t in header.items()):
        if b != pos:
            raise LttError(f"{path}: not a safetensors file ltt reads: tensor {name!r}'s bytes {b}..{e} "
                           f"{'overlap the tensor before' if b < pos else f'leave bytes {pos}..{b} to no tensor'}")
        pos = e
    if pos != len(data):
        raise LttError(f"{path}: not a safetensors file ltt reads: {len(data) - pos} trailing bytes belong to no tensor")
    return out, meta


def _write(path, tensors):
    """tensors: name -> float32 array, written as F32."""
    head, blob = {}, b""
    for name in sorted(tensors):
        a = np.ascontiguousarray(tensors[name], dtype="<f4")
        head[name] = {"dtype": "F32", "shape": list(a.shape), "data_offsets": [len(blob), len(blob) + a.nbytes]}
        blob += a.tobytes()
    h = json.dumps(head, separators=(",", ":"), sort_keys=True).encode("utf-8")
    h += b" " * (-len(h) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(h)) + h + blob)


def _round_to_odd_f32(a):
    """A real array of more precision than float32 (float64, long double, integers) rounded to float32 by
    round-to-odd: toward zero, then the last bit set where that was inexact. float32 keeps 16 bits more than
    bf16, so the one rounding to bf16 that follows (ltt's, or emulate.bf16) gives a's nearest bf16, ties to
    even, as rounding a once would. Rounding to nearest float32 first would round twice: a value just past a
    bf16 halfway point can land on it, and ties-to-even then picks the other neighbour."""
    a = np.asarray(a)
    if a.dtype.kind in "iu":
        a = a.astype(np.float64)  # exact below 2^53; larger integers are no output of this layer
    with np.errstate(over="ignore", invalid="ignore"):
        r = a.astype(np.float32)
        past = np.abs(r.astype(a.dtype)) > np.abs(a)  # rounded away from zero (or to inf): one step back
        r = np.where(past, np.copysign(np.nextafter(np.abs(r), np.float32(0)), r), r).astype(np.float32)
        inexact = (r.astype(a.dtype) != a) & ~np.isnan(a)
    bits = np.ascontiguousarray(r).view(np.uint32) | inexact.astype(np.uint32)
    return bits.view(np.float32).reshape(a.shape)


def _exact_or_odd_f32(a):
    """a (a real NumPy array) as float32 whose one rounding to bf16 is a's own: float16 and float32 as they
    are (exact), wider floats and integers by round-to-odd."""
    return a.astype(np.float32) if a.dtype.kind == "f" and a.dtype.itemsize <= 4 else _round_to_odd_f32(a)


def _several(v):
    """Whether v holds several values (a list, an array, an iterator, or "a,b"), not one."""
    return isinstance(v, (list, tuple, set, range, np.ndarray)) or hasattr(v, "__next__") or (isinstance(v, str) and "," in v)


def _to_numpy(x):
    """An output as a float32 array whose one rounding to bf16 is the value's own (complex: as given, for
    the caller to refuse). Types that hold no numbers (bool, str, dates, objects) are a ValueError."""
    if hasattr(x, "detach"):  # a torch tensor, on any device
        if getattr(x, "is_meta", False):
            raise ValueError("it is a torch tensor on the meta device, which holds no values")
        if x.is_complex():
            return x.detach().cpu().numpy()  # said complex by the caller, not cast away
        import torch  # importable: x is one of its tensors

        if x.dtype == torch.bool:
            raise ValueError("it is a torch tensor of booleans, not of numbers")
        if x.is_floating_point() and x.element_size() <= 4:  # bf16, fp16, fp32 (fp8): exact in float32
            return x.detach().float().cpu().numpy()
        return _round_to_odd_f32(x.detach().cpu().double().numpy())  # float64, integers
    a = np.asarray(x)
    if np.iscomplexobj(a):
        return a
    if a.dtype.kind not in "fiu":
        raise ValueError(f"its values are {a.dtype} ({a.dtype.kind!r}), not numbers: give real numbers (bf16 or "
                         "float32, or float64, rounded once to bf16)")
    return _exact_or_odd_f32(a)


class Case:
    """One golden case: every rank's inputs and the expected outputs.

    inputs: {"R": [T x [M, L]], "S": [T x [M, H]], "g": [L], "W": [H, L]} (float32 holding bf16 values,
    or torch tensors on `device`); expected: {tier: [M, H]}; expected_exact: [M, H] float64 truth;
    meta: the case file's metadata (eps: its RMSNorm epsilon, norm: the RMSNorm order of its expected
    outputs, declared or fused); path: the case file. A case from ltt.case() without `workdir` lives in
    a temporary folder that is removed with the Case (when it is garbage-collected, or at exit): `path`
    holds while the Case does."""

    def __init__(self, path, device=None):
        path = os.path.abspath(path)  # reproduce, and verify after a chdir, run from any directory
        # Read here, then by ltt at each verify: a FIFO or a device would give its bytes once, or wait.
        if os.path.exists(path) and not os.path.isfile(path):
            raise LttError(f"{path}: is not a regular file (a directory, a FIFO or a device): give a case file; a "
                           "case is read here and again by ltt at each verify")
        dtypes = {}
        t, meta = _read(path, dtypes)
        need = ["tp", "tokens", "hidden", "latent", "tiers", "eps", "seed", "dist", "algo", "rmsnorm_order"]
        lacking = [k for k in need if k not in meta]
        if lacking:
            raise LttError(f"{path}: not an ltt case file: its metadata lack {', '.join(lacking)} (ltt golden writes "
                           "case files; an outputs file is the other argument of verify)")
        self.path, self.meta = path, meta
        self._temporary = None  # ltt.case() without workdir: the folder's remover
        self.workdir = None  # ltt.case()'s workdir: where verify() keeps a failing output's folder
        try:
            self._tp, self._tokens = int(meta["tp"]), int(meta["tokens"])
            self._eps, self._norm = float(meta["eps"]), meta["rmsnorm_order"]
            self._hidden, self._latent = int(meta["hidden"]), int(meta["latent"])
            self._tiers = tuple(int(k) for k in meta["tiers"].split(","))
        except ValueError as e:
            raise LttError(f"{path}: not an ltt case file: its metadata hold a value that is not a number ({e})") from None
        if not 0 < self._eps <= 1 or not (meta["seed"].isascii() and meta["seed"].isdigit() and int(meta["seed"]) < 2 ** 64):
            raise LttError(f"{path}: not an ltt case file: eps {meta['eps']!r} is not in (0, 1], or seed {meta['seed']!r} is "
                           "not a whole number below 2^64")
        if min(self.tp, self.tokens, self.hidden, self.latent) < 1 or len(set(self.tiers)) != len(self.tiers) or \
                not all(0 <= k <= 4 for k in self.tiers):
            raise LttError(f"{path}: not an ltt case file: tp, tokens, hidden and latent must be >= 1 and tiers distinct "
                           f"tiers 0..4 (tp {meta['tp']}, tokens {meta['tokens']}, hidden {meta['hidden']}, latent "
                           f"{meta['latent']}, tiers {meta['tiers']!r})")
        for key, allowed in (("dist", ("realistic", "adversarial", "exact")), ("algo", ("one-shot", "ring")),
                             ("rmsnorm_order", ("declared", "fused", "round-then-weight"))):
            if meta[key] not in allowed:
                raise LttError(f"{path}: not an ltt case file: its metadata say {key} {meta[key]!r}, not one of "
                               f"{', '.join(allowed)}")
        conv = _converter(device)
        names = [f"routed.rank{r}" for r in range(self.tp)] + [f"shared.rank{r}" for r in range(self.tp)] + \
            ["norm_weight", "up_weight", "expected_exact"] + [f"expected.tier{k}" for k in self.tiers]
        missing = [n for n in names if n not in t]
        if missing:
            raise LttError(f"{path}: not a whole ltt case file: no tensor {', '.join(missing[:4])}"
                           f"{' and more' if len(missing) > 4 else ''}")
        # The tensors as the metadata say, and no others: a file ltt refuses is refused here too, not
        # loaded to blame the caller's output later.
        M, H, L = self.tokens, self.hidden, self.latent
        want = {**{f"routed.rank{r}": (M, L) for r in range(self.tp)}, **{f"shared.rank{r}": (M, H) for r in range(self.tp)},
                "norm_weight": (L,), "up_weight": (H, L), "expected_exact": (M, H),
                **{f"expected.tier{k}": (M, H) for k in self.tiers}}
        for n, a in t.items():
            if n.startswith("output.tier"):  # a failure dump's outputs ride along
                continue
            if n not in want:
                raise LttError(f"{path}: tensor {n!r} is none this case file holds (tp {self.tp}, tiers "
                               f"{meta['tiers']}): the file was edited or made by another tool; make it again with ltt golden")
            if tuple(a.shape) != want[n] and not (n == "norm_weight" and tuple(a.shape) == (1, L)):
                raise LttError(f"{path}: tensor {n!r} has shape {list(a.shape)}, the metadata (T {self.tp}, M {M}, H {H}, "
                               f"L {L}) give {list(want[n])}: the file was edited; make it again with ltt golden")
            dtype = "F64" if n == "expected_exact" else "BF16"  # as ltt golden writes them, and ltt reads them
            if dtypes[n] != dtype:
                raise LttError(f"{path}: tensor {n!r} is {dtypes[n]}, a case file's is {dtype}: the file was edited or "
                               "made by another tool; make it again with ltt golden")
        self.inputs = {
            "R": [conv(t[f"routed.rank{r}"]) for r in range(self.tp)],
            "S": [conv(t[f"shared.rank{r}"]) for r in range(self.tp)],
            "g": conv(t["norm_weight"].reshape(-1)),
            "W": conv(t["up_weight"]),
        }
        self.expected = {k: conv(t[f"expected.tier{k}"]) for k in self.tiers}
        self.expected_exact = t["expected_exact"]

    # The case file's own figures, read-only: verify() checks an output's shape against them before ltt
    # reads the file, so a changed one would refuse right outputs or pass a wrong shape to ltt's message.
    tp = property(lambda self: self._tp, doc="T, the TP ranks")
    tokens = property(lambda self: self._tokens, doc="M, the tokens")
    hidden = property(lambda self: self._hidden, doc="H, the hidden width")
    latent = property(lambda self: self._latent, doc="L, the latent width")
    eps = property(lambda self: self._eps, doc="the RMSNorm epsilon")
    norm = property(lambda self: self._norm, doc="the RMSNorm order of the expected outputs: declared, fused or round-then-weight")
    tiers = property(lambda self: list(self._tiers), doc="the tiers with expected outputs (a new list each time)")

    def __repr__(self):
        return f"ltt.Case(T={self.tp}, M={self.tokens}, H={self.hidden}, L={self.latent}, tiers={self.tiers}, path={self.path!r})"


class _Folder:
    """A temporary case's folder, removed when the last Case holding it (copies included) is collected,
    or at exit."""

    def __init__(self, path):
        self.path = path
        weakref.finalize(self, shutil.rmtree, path, True)

    def __copy__(self):
        return self  # a copy of the Case shares the folder, and keeps it while it lives

    def __deepcopy__(self, memo):
        return self


def _converter(device):
    if device is None:
        return lambda a: a
    try:
        import torch  # optional: only when tensors are asked for
    except ImportError as e:
        raise LttError(f"device={device!r} returns torch tensors, and torch cannot be imported: {e}") from None

    def conv(a):
        try:
            return torch.from_numpy(np.ascontiguousarray(a)).to(device=device, dtype=torch.bfloat16)
        except (AssertionError, RuntimeError, TypeError, ValueError) as e:  # torch's "not compiled with CUDA" is an assert
            raise LttError(f"device={device!r}: torch cannot place the case there: {e}") from None

    return conv


def _as_int(v):
    """v as an int, or None: an integer (anything operator.index takes, numpy's too, but not a bool) or a
    string of ASCII decimal digits ("8" as well as 8)."""
    if isinstance(v, bool):
        return None
    if isinstance(v, str):
        s = v.strip()
        return int(s) if s.isascii() and s.isdecimal() else None
    try:
        return operator.index(v)
    except TypeError:
        return None


def _one_int(name, v):
    n = _as_int(v)
    if n is None:
        raise LttError(f"ltt.case: {name} must be one integer, not {v!r}" +
                       (": case() returns one case, call it once per value" if _several(v) else ""))
    return str(n)


def case(tp=8, tokens=5, dims="small", dist="realistic", seed=0, tiers="all", eps=1e-6, algo=None, device=None,
         workdir=None, norm=None):
    """Writes one case with `ltt golden` and loads it: tp, tokens and seed are one integer each, dist one
    distribution (realistic, adversarial or exact); norm the RMSNorm order of the expected outputs (None:
    each tier's declared order; "fused" for a kernel that rounds once, as F.rms_norm does, or
    "round-then-weight"). With `workdir` the case file is kept in a sub-folder
    of it named by a hash of the arguments (golden-<hash>/, so that another case there is never taken for
    this one); without, it goes to a temporary folder removed with the Case (see Case)."""
    if not isinstance(dist, str) or dist == "all" or "," in dist:
        raise LttError(f"ltt.case: dist must be one distribution (realistic, adversarial or exact), not {dist!r}: "
                       "case() returns one case, call it once per distribution")
    if isinstance(tiers, str):
        tiers_arg = tiers
    elif _as_int(tiers) is not None:
        tiers_arg = str(_as_int(tiers))  # one tier, as an integer
    elif _several(tiers):  # not a str here: that is ltt's own spelling, above
        ks = list(np.asarray(tiers).reshape(-1)) if isinstance(tiers, np.ndarray) else list(tiers)
        for k in ks:
            if _as_int(k) is None:
                raise LttError(f"ltt.case: tiers {tiers!r}: {k!r} is not a tier (an integer 0..4)")
        if not ks:
            raise LttError("ltt.case: tiers is empty: give 'all', one tier, or a list of tiers 0..4")
        tiers_arg = ",".join(str(n) for n in sorted(_as_int(k) for k in ks))
    else:
        raise LttError(f"ltt.case: tiers must be 'all', one tier (an integer 0..4) or a list of tiers, not {tiers!r}")
    if isinstance(eps, bool):
        raise LttError(f"ltt.case: eps must be a number, not {eps!r}")
    try:
        eps_f = float(eps)
    except (TypeError, ValueError):
        raise LttError(f"ltt.case: eps must be a number, not {eps!r}") from None
    args = ["--tp", _one_int("tp", tp), "--tokens", _one_int("tokens", tokens), "--dims", str(dims), "--dist", dist,
            "--seed", _one_int("seed", seed), "--tier", tiers_arg, "--eps", repr(eps_f)]
    if algo is not None and (not isinstance(algo, str) or not algo):
        raise LttError(f"ltt.case: algo must be a string (one-shot or ring), not {algo!r}")
    if algo:
        args += ["--algo", algo]
    # None and "declared" (what Case.norm says of such a case) are each tier's declared order.
    if norm is not None and (not isinstance(norm, str) or not norm):
        raise LttError(f"ltt.case: norm must be None, 'declared', 'fused' or 'round-then-weight', not {norm!r}")
    if norm and norm != "declared":
        args += ["--norm", norm]
    if workdir is not None and (not isinstance(workdir, (str, os.PathLike)) or not os.fspath(workdir)):
        raise LttError(f"ltt.case: workdir must be a folder's path (or None: a temporary folder), not {workdir!r}")
    if workdir:
        workdir = os.path.abspath(workdir)  # the case's path holds after a chdir
        work = os.path.join(workdir, "golden-" + hashlib.sha256(" ".join(args).encode()).hexdigest()[:16])
        made = not os.path.isdir(work)
        try:
            os.makedirs(work, exist_ok=True)
        except OSError as e:
            raise LttError(f"ltt.case: workdir {workdir}: cannot make {work}: {e.strerror or e}") from None
    else:
        work, made = tempfile.mkdtemp(prefix="ltt-case-"), True
    try:
        # Another process making the same case in the same workdir (pytest -n) holds the set while it
        # writes: wait for it, then this run finds the file there.
        waited = 0.0
        while True:
            try:
                r = _run(["golden", "--out", work, *args])
                break
            except LttError as e:
                if "is using this set now" not in str(e) or waited > 600:
                    raise
                time.sleep(0.2)
                waited += 0.2
        if r.returncode != 0:
            raise LttError(f"ltt golden failed (exit {r.returncode}): {r.stderr.strip() or r.stdout.strip() or 'it said nothing'}")
        try:
            files = sorted({e["file"] for e in json.load(open(os.path.join(work, "manifest.json")))["files"]})
        except (OSError, ValueError, KeyError, TypeError) as e:
            raise LttError(f"ltt golden ({binary()}) exited 0 but left no manifest in {work} to read ({e}): is it ltt? "
                           f"{_HOW}") from None
        if len(files) != 1:
            raise LttError(f"ltt golden {' '.join(args)}: expected one case file in {work}, found {files}")
        c = Case(os.path.join(work, files[0]), device=device)
    except BaseException:
        if not workdir:
            shutil.rmtree(work, ignore_errors=True)
        elif made:
            try:
                # A failed case leaves no empty folder; one another run filled meanwhile stays (rmdir refuses
                # it). Another run that found the folder and has not yet started golden loses nothing:
                # golden --out makes the folder again.
                os.rmdir(work)
            except OSError:
                pass
        raise
    if not workdir:
        c._temporary = _Folder(work)
    c.workdir = workdir
    return c


class Verdict:
    """ltt verify's judgement of one output: passed, the failing elements with their
    admissible sets, the report's figures, and the command that reproduces it.
    steps_max: the greatest distance outside, in bf16 steps, over every element; -1 where an element is
    NaN or infinite on one side only (no distance), the farthest of all. first_outside: the first 20
    elements outside, as the JSON report gives them (non-finite numbers as the strings "inf", "nan").
    kept: the folder holding the failing output for `reproduce` (None: removed)."""

    def __init__(self, report, command, stdout, kept=None):
        c = report["cases"][0]
        self.report, self.stdout, self.kept = c, stdout, kept
        self.passed = bool(c["pass"])
        self.failed_checks = c["failed_checks"]
        self.outside = c["admissible"]["outside"]
        self.elements = c.get("elements", 0)
        self.steps_max = c["admissible"]["steps_max"]
        self.first_outside = c.get("first_outside", [])
        self.reproduce = c["reproduce"] or command

    def __bool__(self):
        return self.passed

    def message(self):
        if self.passed:
            return "ltt verify: every element inside its admissible set"
        n = max(self.elements, 1)
        lines = [f"Outputs are not admissible! (failed checks: {', '.join(self.failed_checks)})"]
        if self.report.get("first_differing_rank", -1) >= 0:
            at = self.report.get("first_differing_element")
            lines.append(f"Ranks differ: rank {self.report['first_differing_rank']}'s output differs from rank "
                         f"{self.report.get('compared_with_rank', 0)}'s" + (f", first at index {tuple(at)}" if at else ""))
        judged = ""
        if self.report.get("first_differing_rank", -1) >= 0:  # the other ranks are compared with it, bit for bit
            judged = f" in rank {self.report.get('compared_with_rank', 0)}'s output, the one judged element by element"
        lines.append(f"Mismatched elements{judged}: {self.outside} / {n} ({100.0 * self.outside / n:.3f}%)")
        adm = self.report.get("admissible", {})
        if adm.get("rows_outside"):
            lines.append(f"Rows no correct member gives: {adm['rows_outside']} of {adm.get('rows_checked')} judged whole; "
                         f"{adm.get('first_row_outside', '')}")
        if self.first_outside:
            # The farthest over every element is the report's steps_max (-1: a NaN/Inf class mismatch);
            # first_outside holds only the first 20 elements outside.
            worst = float("inf") if self.steps_max < 0 else float(self.steps_max)
            far = self.report.get("farthest_outside") or max(self.first_outside, key=lambda f: float(f["steps"]))
            at = (f"at index {tuple(far['index'])} (got {far['got']}, admissible [{far['lo']}, {far['hi']}], "
                  f"truth {far['truth']})")
            dist = "a NaN/Inf class mismatch" if worst == float("inf") else f"{worst:g} bf16 steps"
            if float(far["steps"]) >= worst:
                lines.append(f"Greatest distance: {dist} {at}")
            else:
                lines.append(f"Greatest distance: {dist} (at an element after the first {len(self.first_outside)} "
                             f"outside); the farthest of those: {float(far['steps']):g} bf16 steps {at}")
            for f in self.first_outside[:5]:
                lines.append(f"  index {tuple(f['index'])}: got {f['got']}, admissible [{f['lo']}, {f['hi']}], "
                             f"{float(f['steps']):g} steps outside")
        if adm.get("missing_rounding_points"):
            lines.append(f"{adm.get('outside_at_rounded_truth')} of the {self.outside} elements outside hold the float64 "
                         "truth rounded once: computed without the contract's intermediate bf16 roundings (torch.compile "
                         "does so when Inductor drops an fp32 -> bf16 -> fp32 cast pair; torch._inductor.config."
                         "pattern_matcher = False with emulate_precision_casts = True kept them on torch 2.11)")
        if adm.get("product_rounded_first"):
            lines.append(f"{adm.get('outside_at_product_rounded')} of the {self.outside} elements outside hold the emulated "
                         "reference with the GEMM's output rounded to bf16 before its addend was added: two roundings "
                         "where the contract has one (cuBLAS(Lt) in place, C == D, with an algorithm without split-K, "
                         "and so torch.addmm with a bf16 matrix addend where cuBLAS picks one; out of place it rounds "
                         "once)")
        if self.kept:
            lines.append(f"reproduce: {self.reproduce}")
            lines.append(f"(the output is kept in {self.kept} for that command: remove the folder when done)")
        else:
            lines.append(f"reproduce (its files are temporary and removed; ltt.case(..., workdir=DIR) keeps them): "
                         f"{self.reproduce}")
        return "\n".join(lines)

    def __repr__(self):
        return f"ltt.Verdict(passed={self.passed}, outside={self.outside}, failed_checks={self.failed_checks})"


def verify(case, output, tier, rank=None, workdir=None):
    """Judges `output` ([M, H]; NumPy or torch; bf16 values or fp32, rounded to bf16 as ltt does)
    as tier `tier`'s output on `case`. Returns a Verdict (truthy when it passes).
    With rank=None the output is rank 0's; a dict {rank: output} checks several ranks.
    The output goes to a temporary folder, removed once the verdict is read, except when the output fails
    on a case whose file stays (ltt.case(..., workdir=DIR), or Case(path)): then the folder is kept, as
    Verdict.kept, so that Verdict.reproduce runs later. It is made in `workdir`, else in the case's
    (ltt.case(..., workdir=DIR)), else in the system's temporary folder."""
    def index(what, v):
        n = _as_int(v)
        if n is None:
            raise LttError(f"ltt.verify: {what} must be an integer, not {v!r}")
        return n

    if isinstance(case, (str, os.PathLike)):  # a case file's path: loaded, as Case(path) does
        case = Case(case)
    if not isinstance(case, Case):
        raise LttError(f"ltt.verify: case must be an ltt.Case (ltt.case() or ltt.Case(path)) or a case file's path, "
                       f"not {type(case).__name__}")
    tier = index("tier", tier)
    if isinstance(output, dict) and rank is not None:
        raise LttError(f"ltt.verify: rank={rank!r} with a dict of outputs: the dict's keys are the ranks; give one or "
                       "the other")
    outs = output if isinstance(output, dict) else {0 if rank is None else index("a rank", rank): output}
    tensors = {}
    for r, y in outs.items():
        r = index("a rank", r)
        name = f"output.tier{tier}.rank{r}"
        if name in tensors:  # {0: y, "0": z}: one rank given twice would keep the last in silence
            raise LttError(f"ltt.verify: rank {r}'s output is given twice: give each rank once")
        if y is None:
            raise LttError(f"ltt.verify: the output of rank {r} is None: give an array [M, H]")
        try:
            a = _to_numpy(y)
        except (TypeError, ValueError) as e:
            raise LttError(f"ltt.verify: the output of rank {r} is not an array of numbers: {e}") from None
        if np.iscomplexobj(a):
            raise LttError(f"ltt.verify: the output of rank {r} is complex: give real values")
        if a.shape != (case.tokens, case.hidden):
            raise LttError(f"ltt.verify: the output of rank {r} has shape {a.shape}, the case needs "
                           f"{(case.tokens, case.hidden)} (tokens, hidden)")
        tensors[name] = a
    where = workdir or getattr(case, "workdir", None)
    if where:
        where = os.path.abspath(where)  # reproduce runs from any directory
        try:
            os.makedirs(where, exist_ok=True)
        except OSError as e:
            raise LttError(f"ltt.verify: workdir {where}: cannot use it as a folder: {e.strerror or e}") from None
    work, keep = tempfile.mkdtemp(prefix="ltt-verify-", dir=where), False
    try:
        out_path = os.path.join(work, "output.safetensors")
        _write(out_path, tensors)
        report = os.path.join(work, "report.json")
        args = ["verify", "--case", case.path, "--output", out_path, "--tier", str(tier), "--json", report]
        r = _run(args, f"ltt.verify (case {case.path}, tier {tier})", work)
        if not os.path.exists(report):
            how = f"killed by signal {-r.returncode}" if r.returncode < 0 else f"exit {r.returncode}"
            said = r.stderr.strip() or r.stdout.strip()
            raise LttError(f"{binary()} verify ({how}) wrote no report: " + (said if said else "it said nothing: is it ltt? " + _HOW))
        report = json.load(open(report))
        if not report.get("finished", "cases" in report):  # ended without a verdict (a crash): say how, never read it as one
            raise LttError(f"ltt verify did not finish (exit {r.returncode}): {r.stderr.strip() or report.get('note', '')}")
        keep = not report["cases"][0]["pass"] and getattr(case, "_temporary", None) is None
        return Verdict(report, " ".join(shlex.quote(a) for a in [binary(), *args]), r.stdout, work if keep else None)
    finally:
        if not keep:
            shutil.rmtree(work, ignore_errors=True)


def assert_verified(case, output, tier, rank=None, workdir=None):
    """Raises AssertionError (a message like torch.testing.assert_close's: what failed, where, by how
    much, how to reproduce) unless `output` is admissible for `tier` on `case`."""
    v = verify(case, output, tier, rank, workdir)
    if not v.passed:
        raise AssertionError(v.message())
    return v
