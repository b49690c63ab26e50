#!/usr/bin/env python3
# torch_tiers.py: do outputs that PyTorch's own ops compute (not ltt's code) pass `ltt verify`, tier by tier,
# and do the same outputs with planted bugs fail it?
#
# For every (T, M, distribution) it runs `ltt golden` to write a case file (every rank's bf16 partials R_r
# [M, L] and S_r [M, H], g, W, expected.tier{k}), then computes rank 0's output Y [M, H] of every tier the
# file covers with PyTorch ops on --device (bf16 storage, fp32 math, the rounding points of the README's
# contracts table; reductions are one-shot: the T bf16 partials stacked, summed in fp32, rounded once):
#   tier 0  Z = allreduce(R); N = bf16(Z*rstd*g) (fused); S^(r) = reduce-scatter of S over the hidden shards;
#           Y^(r) = addmm(S^(r), N, W[shard r]^T) (cuBLAS, beta-add epilogue); Lamport writers turn -0 into +0;
#           all-gather = concatenation of the T shards
#   tier 1  N = bf16(bf16(Z*rstd)*g) (round-then-weight); Y' = F.linear(N, W); S = allreduce(S_r); Y = Y' + S
#   tier 2  P_r = S_r with P_r[:, shard r] = addmm(S_r[:, shard r], N, W[shard r]^T); Y = allreduce(P_r)
#   tier 3  C = allreduce([R_r | S_r]); N from C[:, :L]; Y = addmm(C[:, L:], N, W^T)
#   tier 4  P_r = addmm(S_r, N[:, latent shard r], W[:, latent shard r]^T); Y = allreduce(P_r)
# (the RMSNorm order follows the case's `rmsnorm_order`: "declared" = fused for tier 0, round-then-weight
# for tiers 1-4), writes them as output.tier{k}.rank0 into DIR/outputs/<case file name> and runs
# `ltt verify`: each must pass (exit 0). Then three planted bugs, same ops with one change, each in its own
# outputs file (DIR/outputs/<bug>/<case file name>), each must fail (exit 1):
#   row   row M//2 of the correct Y scaled by 1.03
#   eps   eps x10 in the RMSNorm
#   drop  the last rank's S_r dropped from the reductions (tier 0: reduce-scatter; 1: S all-reduce;
#         2: S_{T-1} left out of P_{T-1}, so out of the final reduce; 3: the S half of the concatenation;
#         4: P_{T-1} dropped from the final reduce)
# With --rmsnorm torch the RMSNorm is PyTorch's own F.rms_norm (on CUDA its own kernel, with the rounding
# points it chose), not the fp32 ops above; --golden-norm sets the order the expected outputs (and so the
# verdict's contract) follow: the verdict then says which contract that kernel is a member of.
# With --compile the correct outputs come from torch.compile of each tier's function (fullgraph, no fall-back
# to eager): Inductor's Triton kernels sum, normalise and add in orders of their own, which the verdict must
# accept as it accepts cuBLAS's; the bugs are then not run.
# With --algo ring the case declares ring reductions (`ltt golden --algo ring`) and every reduction here is a
# ring in a permuted rank order of this script's own (a fixed shuffle per (T, M); not ltt's chunk order):
# bf16 partial + next rank's bf16 value, added in fp32 and rounded to bf16 at every hop. Only the `drop` bug
# runs then: `row` and `eps` move Y by less than a ring's own freedom (README, "Ring verdicts are weaker").
# Column "differ vs expected.tier{k}": the fraction of elements of the correct output whose bf16 value
# differs from the case's emulated reference (NaN = NaN, -0 = +0), with the largest plain ULP distance.
# A bug that changes no bit of a case's output leaves the correct output itself: it is marked "(no effect)".
# eps x10 may do so on exact inputs (whose mean square dwarfs eps) and wherever it moves no bit of N = RMSNorm(Z)
# (checked on the case's Z: outlier rows, whose mean square dwarfs eps, a zero row, whose N is 0 whatever
# rstd is), and is counted apart, since no verdict can refuse it; any other bug with no effect means its planting
# is broken, and fails the run.
# Exit 0 iff every correct output passed and every bug failed but those; 1 otherwise; 2 on a script, usage or
# input error (ltt missing, torch missing, CUDA missing, `ltt` exiting 2).
#
# Run it (on the GPU machine, from the repository root, after building ltt):
#   python3 scripts/torch_tiers.py --ltt build/release/bin/ltt --work /tmp/torch_tiers --dims k3 --tp 8,16 \
#       --tokens 1,5,33,128,256,2048 --dist realistic,adversarial --device cuda \
#       --out torch_tiers.md --json torch_tiers.json
# Small and on a CPU (Debian's python3-torch):
#   /usr/bin/python3 scripts/torch_tiers.py --ltt build/release/bin/ltt --work /tmp/tt_work --device cpu \
#       --dims small --tp 8 --tokens 1,5,33 --dist realistic,adversarial
import argparse
import ctypes
import json
import os
import re
import shutil
import struct
import subprocess
import sys
import time

BUGS = ("row", "eps", "drop")
BUG_TITLES = {"row": "bug row*1.03", "eps": "bug eps x10", "drop": "bug drop S_{T-1}"}


def die(msg):
    print(f"torch_tiers.py: error: {msg}", file=sys.stderr)
    sys.exit(2)


def parse_args():
    p = argparse.ArgumentParser(description="PyTorch-computed tier outputs against `ltt verify` "
                                            "(correct ones must pass, planted bugs must fail).")
    p.add_argument("--ltt", required=True, help="path to the ltt binary")
    p.add_argument("--work", required=True, help="work directory (cases/, outputs/, verify/ under it)")
    p.add_argument("--dims", default="k3", help="k3, small or H,L (passed to ltt golden)")
    p.add_argument("--tp", default="8,16", help="TP sizes, comma-separated")
    p.add_argument("--tokens", default="1,5,33,128,256,2048", help="token counts M, comma-separated")
    p.add_argument("--dist", default="realistic,adversarial", help="distributions, comma-separated")
    p.add_argument("--seed", type=int, default=0, help="input seed (passed to ltt golden)")
    p.add_argument("--device", default="cuda", help="torch device: cuda, cuda:N or cpu")
    p.add_argument("--out", help="write the table as Markdown here")
    p.add_argument("--json", help="write the results as JSON here")
    p.add_argument("--gemm", default="bf16", choices=("bf16", "fp32", "round-then-add"),
                   help="bf16: the bf16 GEMMs (addmm, F.linear); fp32: the same ops on fp32 copies, rounded once; "
                        "round-then-add: N W^T rounded to bf16, then the addend added and rounded again (NOT a member "
                        "of tiers 0, 2, 3, 4's family: a negative control)")
    p.add_argument("--rmsnorm", default="ltt", choices=("ltt", "torch"),
                   help="ltt: the RMSNorm as fp32 ops with the case's rounding points (the order below); torch: "
                        "PyTorch's own F.rms_norm(Z, [L], g, eps), whatever order its kernel rounds in (code that "
                        "is not ltt's; the planted bugs go through it too)")
    p.add_argument("--golden-norm", default="declared", choices=("declared", "fused", "round-then-weight"),
                   help="the RMSNorm order of the expected outputs, passed to `ltt golden --norm` (declared: each "
                        "tier's own, fused for tier 0 and round-then-weight for tiers 1-4)")
    p.add_argument("--compile", action="store_true",
                   help="compute the correct outputs with torch.compile of each tier's function (Inductor's own "
                        "Triton kernels for the sums, the RMSNorm and the adds, fused as it chooses; its choice of "
                        "GEMM) rather than eagerly; the planted bugs are then not run (their detection does not "
                        "depend on how the correct output was computed: the eager run covers it)")
    p.add_argument("--keep-casts", action="store_true",
                   help="with --compile: turn off Inductor's graph patterns (torch._inductor.config.pattern_matcher), "
                        "one of which drops an fp32 -> bf16 -> fp32 pair of casts as pointless, taking a rounding "
                        "point out; and emulate_precision_casts on")
    p.add_argument("--compile-mode", default="default",
                   choices=("default", "reduce-overhead", "max-autotune", "max-autotune-no-cudagraphs"),
                   help="with --compile: torch.compile's mode (max-autotune lets Inductor choose among GEMM kernels "
                        "by timing them, its own Triton templates included)")
    p.add_argument("--gemm-backends", metavar="LIST",
                   help="with --compile-mode max-autotune*: the GEMM kernels Inductor may choose from "
                        "(torch._inductor.config.max_autotune_gemm_backends, e.g. TRITON for its Triton templates "
                        "only, ATEN for cuBLAS only)")
    p.add_argument("--dynamic-tokens", action="store_true",
                   help="with --compile: compile each tier once with the token count M symbolic "
                        "(torch._dynamo.mark_dynamic on dim 0 of every R_r and S_r), as vLLM compiles its model for "
                        "any batch size: the kernels Inductor chose (and, with max-autotune, timed) at the first M "
                        "then run at every later M. M 1 stays a graph of its own (torch specialises sizes 0 and 1). "
                        "The progress lines count the graphs compiled so far, so a recompile shows")
    p.add_argument("--algo", default="one-shot", choices=("one-shot", "ring"),
                   help="the reductions: one-shot (fp32 sum, one rounding) or ring (a bf16 rounding at every hop, in a "
                        "permuted rank order; the cases declare it; only the drop bug runs)")
    p.add_argument("--keep", action="store_true", help="keep case and outputs files (k3 T16 M2048 is ~1 GB)")
    p.add_argument("--no-safetensors", action="store_true",
                   help="use the built-in reader/writer even if the safetensors package is importable")
    a = p.parse_args()
    try:
        a.tp_list = [int(x) for x in a.tp.split(",") if x]
        a.tokens_list = [int(x) for x in a.tokens.split(",") if x]
    except ValueError:
        die("--tp and --tokens take comma-separated integers")
    a.dist_list = [x for x in a.dist.split(",") if x]
    named = {"k3": (7168, 3584), "small": (256, 128)}
    try:
        a.dims_hl = named[a.dims] if a.dims in named else tuple(int(x) for x in a.dims.split(","))
        assert len(a.dims_hl) == 2
    except (ValueError, AssertionError):
        die(f"--dims {a.dims!r}: k3, small or H,L")
    if (a.keep_casts or a.compile_mode != "default" or a.gemm_backends or a.dynamic_tokens) and not a.compile:
        die("--keep-casts, --compile-mode, --gemm-backends and --dynamic-tokens set how torch.compile compiles: "
            "they need --compile")
    if a.gemm_backends and not a.compile_mode.startswith("max-autotune"):
        die("--gemm-backends chooses among the GEMMs that max-autotune times: it needs --compile-mode max-autotune "
            "(or max-autotune-no-cudagraphs)")
    if not a.tp_list or not a.tokens_list or not a.dist_list:
        die("--tp, --tokens and --dist need at least one value each")
    return a


args = parse_args()

# ---------------------------------------------------------------------------------------------- environment
ltt = os.path.abspath(args.ltt)
if not (os.path.isfile(ltt) and os.access(ltt, os.X_OK)):
    die(f"ltt binary not found or not executable: {args.ltt} (build it: cmake --preset release && "
        f"cmake --build --preset release -j)")
try:
    import torch
    import torch.nn.functional as F
except Exception as e:  # noqa: BLE001
    die(f"torch is not importable with {sys.executable} ({e}); install PyTorch "
        f"(Debian: apt-get install python3-torch, then run with /usr/bin/python3)")
if sys.byteorder != "little":
    die("this script reads and writes little-endian bytes in place: a little-endian host is needed")
try:
    device = torch.device(args.device)
except Exception as e:  # noqa: BLE001
    die(f"bad --device {args.device!r}: {e}")
if device.type == "cuda":
    if not torch.cuda.is_available():
        die(f"--device {args.device}: CUDA is not available to torch {torch.__version__} "
            f"(torch.version.cuda = {torch.version.cuda}); use --device cpu to run on the CPU")
    # The contracts say fp32 accumulation: no reduced-precision (bf16) reductions in cuBLAS, split-K
    # included (PyTorch >= 2.10 takes (allow_reduced_precision, allow_splitk); older ones a bool).
    try:  # allow_splitk=False needs cuBLASLt
        torch.backends.cuda.preferred_blas_library("cublaslt")
        torch.backends.cuda.matmul.allow_bf16_reduced_precision_reduction = (False, False)
    except Exception:  # noqa: BLE001
        torch.backends.cuda.matmul.allow_bf16_reduced_precision_reduction = False
    torch.backends.cuda.matmul.allow_tf32 = False  # --gemm fp32: IEEE fp32 products and sums
if args.rmsnorm == "torch" and not hasattr(F, "rms_norm"):
    die(f"--rmsnorm torch needs torch.nn.functional.rms_norm (PyTorch >= 2.4); torch {torch.__version__} has none")
RMSNORM_AS = ("ltt's fp32 ops" if args.rmsnorm == "ltt" else "F.rms_norm") + \
    ("" if args.golden_norm == "declared" else f", expected outputs {args.golden_norm}")
REDUCTION_SETTING = (str(torch.backends.cuda.matmul.allow_bf16_reduced_precision_reduction)
                     if device.type == "cuda" else "n/a (cpu)")

st_torch = None
if not args.no_safetensors:
    try:
        import safetensors.torch as st_torch  # noqa: F401
        from safetensors import safe_open
    except Exception:  # noqa: BLE001
        st_torch = None

bf16 = torch.bfloat16
DTYPES = {"BF16": (torch.bfloat16, 2), "F32": (torch.float32, 4), "F64": (torch.float64, 8)}


# ---------------------------------------------------------------------------------------------- safetensors
class CaseReader:
    """Reads the tensors it is asked for (not the whole file) and the metadata of a case file."""

    def __init__(self, path):
        self.path = path
        self._st = st_torch is not None
        if self._st:
            with safe_open(path, framework="pt", device="cpu") as f:
                self.meta = dict(f.metadata() or {})
                self.names = set(f.keys())
            return
        with open(path, "rb") as f:
            head = f.read(8)
            if len(head) != 8:
                raise ValueError(f"{path}: shorter than the 8-byte header length")
            (n,) = struct.unpack("<Q", head)
            if n > 100 * 1024 * 1024:
                raise ValueError(f"{path}: header length {n} is implausible")
            self.header = json.loads(f.read(n).decode("utf-8"))
        self.data_start = 8 + n
        self.meta = dict(self.header.pop("__metadata__", {}) or {})
        self.names = set(self.header)

    def get(self, name):
        if self._st:
            with safe_open(self.path, framework="pt", device="cpu") as f:
                return f.get_tensor(name)
        if name not in self.header:
            raise KeyError(f"{self.path}: no tensor {name}")
        info = self.header[name]
        dtype, size = DTYPES[info["dtype"]]
        b, e = info["data_offsets"]
        count = 1
        for d in info["shape"]:
            count *= d
        if e - b != count * size:
            raise ValueError(f"{self.path}: tensor {name} has {e - b} bytes for shape {info['shape']}")
        buf = bytearray(e - b)
        with open(self.path, "rb") as f:
            f.seek(self.data_start + b)
            if f.readinto(buf) != e - b:
                raise ValueError(f"{self.path}: tensor {name} runs past the end of the file")
        return torch.frombuffer(buf, dtype=dtype).reshape(info["shape"])


def save_outputs(tensors, path):
    """tensors: name -> bf16 tensor (any device). Writes a safetensors file (no metadata)."""
    cpu = {k: v.detach().to("cpu").contiguous() for k, v in tensors.items()}
    tmp = path + ".tmp"
    if st_torch is not None:
        st_torch.save_file(cpu, tmp)
    else:
        names = {torch.bfloat16: "BF16", torch.float32: "F32", torch.float64: "F64"}
        head, pos = {}, 0
        for name in sorted(cpu):
            t = cpu[name]
            nbytes = t.numel() * t.element_size()
            head[name] = {"dtype": names[t.dtype], "shape": list(t.shape), "data_offsets": [pos, pos + nbytes]}
            pos += nbytes
        h = json.dumps(head, separators=(",", ":"), sort_keys=True).encode("utf-8")
        h += b" " * (-len(h) % 8)
        with open(tmp, "wb") as f:
            f.write(struct.pack("<Q", len(h)))
            f.write(h)
            for name in sorted(cpu):
                t = cpu[name]
                f.write(ctypes.string_at(t.data_ptr(), t.numel() * t.element_size()))
    os.replace(tmp, path)


# ---------------------------------------------------------------------------------------------- the tiers
RING_ORDER = {}  # T -> the permutation of the ranks this script's rings visit


def allreduce(parts):
    """All-reduce of bf16 partials: one-shot (fp32 sum, one rounding to bf16) or, with --algo ring, a ring in a
    permuted rank order (fp32 add, bf16 rounding at every hop)."""
    if args.algo == "one-shot" or len(parts) == 1:
        return torch.stack(parts).float().sum(0).to(bf16)
    order = RING_ORDER[len(parts)] if len(parts) in RING_ORDER else list(range(len(parts)))[::-1]
    acc = parts[order[0]]
    for q in order[1:]:
        acc = (acc.float() + parts[q].float()).to(bf16)
    return acc


def rmsnorm(Z, g, eps, order):
    if args.rmsnorm == "torch":
        return F.rms_norm(Z, (Z.shape[-1],), weight=g, eps=eps)
    z = Z.float()
    rstd = torch.rsqrt(z.pow(2).mean(-1, keepdim=True) + eps)
    if order == "fused":
        return (z * rstd * g.float()).to(bf16)
    if order == "round-then-weight":
        return ((z * rstd).to(bf16).float() * g.float()).to(bf16)
    raise ValueError(f"unknown RMSNorm order {order!r}")


def addmm(C, A, B):
    """C + A B in one rounding to bf16: cuBLAS's bf16 GEMM with the beta = 1 epilogue (--gemm bf16), or
    the same on fp32 copies of the operands, rounded once (--gemm fp32: another member of the family)."""
    if args.gemm == "fp32":
        return torch.addmm(C.float(), A.float(), B.float()).to(bf16)
    if args.gemm == "round-then-add":
        return (A.float() @ B.float()).to(bf16) + C
    return torch.addmm(C, A, B)


def linear(N, W):
    if args.gemm in ("fp32", "round-then-add"):
        return F.linear(N.float(), W.float()).to(bf16)
    return F.linear(N, W)


def hidden_shard(r, H, T):
    Hs = H // T
    return slice(r * Hs, (r + 1) * Hs)


def lamport_write(y):
    """Tier 0's all-gather writers turn a real -0 (the 'empty' sentinel) into +0."""
    return torch.where(y == 0, torch.zeros_like(y), y)


def tier0(R, S, g, W, eps, order, drop):
    T, H = len(R), W.shape[0]
    N = rmsnorm(allreduce(R), g, eps, order)
    Ss = S[:-1] if drop else S
    shards = []
    for r in range(T):
        c = hidden_shard(r, H, T)
        S_r = allreduce([s[:, c] for s in Ss])                    # reduce-scatter: rank r's hidden shard
        shards.append(lamport_write(addmm(S_r, N, W[c].t())))
    return torch.cat(shards, 1)                                   # all-gather


def tier1(R, S, g, W, eps, order, drop):
    N = rmsnorm(allreduce(R), g, eps, order)
    Yp = linear(N, W)                                             # main stream
    Ssum = allreduce(S[:-1] if drop else S)                       # aux stream
    return Yp + Ssum                                              # bf16 add: fp32, one rounding


def tier2(R, S, g, W, eps, order, drop):
    T, H = len(R), W.shape[0]
    N = rmsnorm(allreduce(R), g, eps, order)
    P = []
    for r in range(T):
        c = hidden_shard(r, H, T)
        S_r = torch.zeros_like(S[r]) if (drop and r == T - 1) else S[r]
        P_r = S_r.clone()
        P_r[:, c] = addmm(S_r[:, c], N, W[c].t())                 # beta = 1 epilogue into own shard
        P.append(P_r)
    return allreduce(P)


def tier3(R, S, g, W, eps, order, drop):
    T, L = len(R), R[0].shape[1]
    cat = [torch.cat([R[r], torch.zeros_like(S[r]) if (drop and r == T - 1) else S[r]], 1) for r in range(T)]
    C = allreduce(cat)
    N = rmsnorm(C[:, :L], g, eps, order)
    return addmm(C[:, L:], N, W.t())


def tier4(R, S, g, W, eps, order, drop):
    T, L = len(R), R[0].shape[1]
    Ls = L // T
    N = rmsnorm(allreduce(R), g, eps, order)
    P = []
    for r in range(T):
        c = slice(r * Ls, (r + 1) * Ls)
        P.append(addmm(S[r], N[:, c], W[:, c].t()))
    return allreduce(P[:-1] if drop else P)


TIERS = {0: tier0, 1: tier1, 2: tier2, 3: tier3, 4: tier4}
VARIANTS = ("correct",) + (BUGS if args.algo == "one-shot" else ("drop",))
COMPILED_AS = ("torch.compile of each tier (mode " + args.compile_mode
               + (", GEMM backends " + args.gemm_backends if args.gemm_backends else "")
               + (", pattern_matcher off, emulate_precision_casts on" if args.keep_casts else "")
               + (", M symbolic" if args.dynamic_tokens else "") + ")")
if args.compile:
    # Every call compiled, never a silent fall-back to eager: no graph breaks (fullgraph), and a recompile
    # limit far past this run's shapes, an error where this torch can make it one.
    import torch._dynamo
    import torch._inductor.config
    from torch._dynamo.utils import counters as dynamo_counters
    for name in ("recompile_limit", "cache_size_limit", "accumulated_recompile_limit", "accumulated_cache_size_limit"):
        if hasattr(torch._dynamo.config, name):
            setattr(torch._dynamo.config, name, 4096)
    if hasattr(torch._dynamo.config, "fail_on_recompile_limit_hit"):
        torch._dynamo.config.fail_on_recompile_limit_hit = True
    if args.keep_casts:
        torch._inductor.config.pattern_matcher = False
        torch._inductor.config.emulate_precision_casts = True
    if args.gemm_backends:
        torch._inductor.config.max_autotune_gemm_backends = args.gemm_backends
    TIERS = {k: torch.compile(fn, fullgraph=True, mode=None if args.compile_mode == "default" else args.compile_mode)
             for k, fn in TIERS.items()}
    VARIANTS = ("correct",)


def tier_order(meta_order, k):
    if meta_order in ("fused", "round-then-weight"):
        return meta_order
    if meta_order in ("declared", "", None):
        return "fused" if k == 0 else "round-then-weight"
    raise ValueError(f"case metadata rmsnorm_order {meta_order!r} is not one this script knows")


def compute(k, R, S, g, W, eps, order, bug):
    if args.compile:  # modes with CUDA graphs (max-autotune, reduce-overhead): a new step, its outputs kept below
        torch.compiler.cudagraph_mark_step_begin()
    y = TIERS[k](R, S, g, W, eps * 10 if bug == "eps" else eps, order, bug == "drop")
    if args.compile:  # a CUDA-graph mode reuses its output's memory at its next call
        y = y.clone()
    if bug == "row":
        i = y.shape[0] // 2
        y = y.clone()
        y[i] = (y[i].float() * 1.03).to(bf16)
    return y


# ---------------------------------------------------------------------------------------------- comparison
def differ_vs(y, e):
    """Elements whose bf16 value differs (NaN = NaN, -0 = +0) and the largest plain ULP distance."""
    a = y.detach().to("cpu").contiguous().view(torch.int16).int()
    b = e.contiguous().view(torch.int16).int()
    na, nb = torch.isnan(y.detach().to("cpu").float()), torch.isnan(e.float())

    def ordered(x):
        mag = x & 0x7FFF
        return torch.where(x < 0, -mag, mag)

    oa, ob = ordered(a), ordered(b)
    both_nan = na & nb
    one_nan = na ^ nb
    diff = (oa != ob) & ~both_nan
    finite_pair = ~(na | nb)
    ulp = (oa - ob).abs()[finite_pair]
    return {"elements": a.numel(), "differ": int(diff.sum()), "frac": float(diff.sum()) / a.numel(),
            "max_ulp": int(ulp.max()) if ulp.numel() else 0, "nan_mismatch": int(one_nan.sum())}


# ---------------------------------------------------------------------------------------------- driver
def run(cmd):
    return subprocess.run(cmd, capture_output=True, text=True)


def summary_lines(stdout):
    lines = [ln for ln in stdout.splitlines() if ln.startswith("# ")]
    tail = [ln for ln in lines if ln.startswith("# Out of bound") or re.search(r" cases?, \d+ failed", ln)]
    return tail if tail else lines[-2:]


work = os.path.abspath(args.work)
cases_dir = os.path.join(work, "cases")
outputs_dir = os.path.join(work, "outputs")
verify_dir = os.path.join(work, "verify")
for d in (cases_dir, outputs_dir, verify_dir):
    os.makedirs(d, exist_ok=True)

print(f"# torch_tiers: torch {torch.__version__} (CUDA {torch.version.cuda}) on {device}"
      + (f" ({torch.cuda.get_device_name(device)})" if device.type == "cuda" else "")
      + f"; case files via {'safetensors ' + __import__('safetensors').__version__ if st_torch else 'the built-in reader'}"
      + f"; ltt {ltt}; {COMPILED_AS if args.compile else 'eager ops'}; GEMMs {args.gemm}; RMSNorm {RMSNORM_AS}; allow_bf16_reduced_precision_reduction {REDUCTION_SETTING}", flush=True)

combos = [(T, M, dist) for T in args.tp_list for M in args.tokens_list for dist in args.dist_list]
rows = []          # one per (case, tier)
errors = []        # script / input errors (exit 2)
t_start = time.time()

for idx, (T, M, dist) in enumerate(combos, 1):
    label = f"T{T} M{M} {dist}"
    t0 = time.time()
    g_cmd = [ltt, "golden", "--out", cases_dir, "--dims", args.dims, "--tp", str(T), "--tokens", str(M),
             "--dist", dist, "--tier", "all", "--seed", str(args.seed), "--algo", args.algo] \
        + ([] if args.golden_norm == "declared" else ["--norm", args.golden_norm])
    res = run(g_cmd)
    if res.returncode != 0:
        errors.append(f"{label}: ltt golden exited {res.returncode}: {res.stderr.strip() or res.stdout.strip()}")
        print(f"!!! ERROR {errors[-1]}\n!!! command: {' '.join(g_cmd)}", flush=True)
        continue
    try:
        manifest = json.load(open(os.path.join(cases_dir, "manifest.json")))
    except Exception as e:  # noqa: BLE001
        errors.append(f"{label}: cannot read {cases_dir}/manifest.json: {e}")
        print(f"!!! ERROR {errors[-1]}", flush=True)
        continue
    entries = [e for e in manifest.get("files", [])
               if e.get("metadata", {}).get("tp") == str(T) and e.get("metadata", {}).get("tokens") == str(M)
               and e.get("metadata", {}).get("dist") == dist and e.get("metadata", {}).get("seed") == str(args.seed)
               and (e.get("metadata", {}).get("hidden"), e.get("metadata", {}).get("latent"))
               == tuple(str(x) for x in args.dims_hl)
               and os.path.exists(os.path.join(cases_dir, e["file"]))]
    if not entries:
        errors.append(f"{label}: manifest.json lists no case file for it")
        print(f"!!! ERROR {errors[-1]}", flush=True)
        continue
    t_golden = time.time() - t0

    for entry in entries:
        case_name = entry["file"]
        case_path = os.path.join(cases_dir, case_name)
        t1 = time.time()
        try:
            rd = CaseReader(case_path)
            meta = rd.meta
            tiers = [int(x) for x in meta["tiers"].split(",") if x]
            eps = float(meta["eps"])
            H, L = int(meta["hidden"]), int(meta["latent"])
            if int(meta["tp"]) != T or int(meta["tokens"]) != M:
                raise ValueError(f"metadata tp/tokens {meta['tp']}/{meta['tokens']} differ from the request")
            if meta.get("algo", "one-shot") != args.algo:
                raise ValueError(f"the case declares algo {meta.get('algo')!r}, this run's reductions are {args.algo}")
            if args.algo == "ring":  # a rank order of its own per (T, M): neither rank order nor ltt's chunks
                import random
                perm = list(range(T))
                random.Random(1000 * T + M).shuffle(perm)
                RING_ORDER[T] = perm
            R = [rd.get(f"routed.rank{r}").to(device) for r in range(T)]
            S = [rd.get(f"shared.rank{r}").to(device) for r in range(T)]
            if args.dynamic_tokens and M > 1:  # M symbolic in the compiled graphs (torch specialises M 1 anyway)
                for t in R + S:
                    torch._dynamo.mark_dynamic(t, 0)
            g = rd.get("norm_weight").to(device)
            W = rd.get("up_weight").to(device)
            expected = {k: rd.get(f"expected.tier{k}") for k in tiers}
            for t, shape in [(R[0], (M, L)), (S[0], (M, H)), (g, (L,)), (W, (H, L))]:
                if tuple(t.shape) != shape or t.dtype != bf16:
                    raise ValueError(f"a tensor has shape {tuple(t.shape)} {t.dtype}, expected {shape} bf16")
            outputs = {v: {} for v in VARIANTS}
            stats = {}
            Z = allreduce(R)  # the tiers' Z, for eps x10's effect on N below (the same in every tier)
            for k in tiers:
                order = tier_order(meta.get("rmsnorm_order"), k)
                for v in outputs:
                    y = compute(k, R, S, g, W, eps, order, None if v == "correct" else v)
                    if tuple(y.shape) != (M, H) or y.dtype != bf16:
                        raise RuntimeError(f"tier {k} {v}: computed {tuple(y.shape)} {y.dtype}")
                    outputs[v][f"output.tier{k}.rank0"] = y
                stats[k] = differ_vs(outputs["correct"][f"output.tier{k}.rank0"], expected[k])
                # A bug that changes no bit of this case's output: no verdict can refuse it here.
                bits = outputs["correct"][f"output.tier{k}.rank0"].view(torch.int16)
                stats[k]["no_effect"] = {v: torch.equal(outputs[v][f"output.tier{k}.rank0"].view(torch.int16), bits)
                                         for v in VARIANTS[1:]}
                # Whether eps x10 can move anything here: N of Z with eps and with 10 eps.
                stats[k]["eps_inert"] = torch.equal(rmsnorm(Z, g, eps, order).view(torch.int16),
                                                    rmsnorm(Z, g, eps * 10, order).view(torch.int16))
                stats[k]["order"] = order if args.rmsnorm == "ltt" else f"F.rms_norm; expected: {order}"
            if device.type == "cuda":
                torch.cuda.synchronize(device)
            del R, S, g, W, expected, Z
        except Exception as e:  # noqa: BLE001
            errors.append(f"{label}: {case_name}: {type(e).__name__}: {e}")
            print(f"!!! ERROR {errors[-1]}", flush=True)
            continue
        t_compute = time.time() - t1

        t2 = time.time()
        verdicts = {}   # variant -> {"rc", "summary", "tiers": {k: case json}}
        for v, tensors in outputs.items():
            odir = outputs_dir if v == "correct" else os.path.join(outputs_dir, v)
            vdir = os.path.join(verify_dir, v)
            os.makedirs(odir, exist_ok=True)
            os.makedirs(vdir, exist_ok=True)
            out_path = os.path.join(odir, case_name)
            json_path = os.path.join(vdir, case_name.replace(".safetensors", "") + ".json")
            save_outputs(tensors, out_path)
            if os.path.exists(json_path):
                os.remove(json_path)
            v_cmd = [ltt, "verify", "--case", case_path, "--output", out_path, "--json", json_path]
            res = run(v_cmd)
            per_tier = {}
            if os.path.exists(json_path):
                try:
                    for c in json.load(open(json_path)).get("cases", []):
                        per_tier[int(c["tier"])] = c
                except Exception as e:  # noqa: BLE001
                    errors.append(f"{label}: {v}: unreadable verify JSON {json_path}: {e}")
            verdicts[v] = {"rc": res.returncode, "summary": summary_lines(res.stdout), "tiers": per_tier,
                           "command": " ".join(v_cmd),
                           "fail_lines": [ln for ln in res.stdout.splitlines()
                                          if ln.startswith("#   FAIL") or ln.startswith("#     ")][:40]}
            want = 0 if v == "correct" else 1
            if res.returncode not in (0, 1):
                errors.append(f"{label}: {v}: ltt verify exited {res.returncode}: "
                              f"{res.stderr.strip() or res.stdout.strip()[-500:]}")
                print(f"!!! ERROR {errors[-1]}\n!!! command: {' '.join(v_cmd)}", flush=True)
            else:
                missing = [k for k in tiers if k not in per_tier]
                if missing:
                    errors.append(f"{label}: {v}: verify JSON has no result for tier(s) {missing}")
                    print(f"!!! ERROR {errors[-1]}", flush=True)
                all_pass = all(per_tier.get(k, {}).get("pass", False) for k in tiers)
                if (res.returncode == 0) != all_pass:
                    errors.append(f"{label}: {v}: verify exit {res.returncode} disagrees with its JSON verdicts")
                    print(f"!!! ERROR {errors[-1]}", flush=True)
            if not args.keep:
                os.remove(out_path)
        t_verify = time.time() - t2

        for k in tiers:
            row = {"case": case_name, "tp": T, "tokens": M, "dist": dist, "tier": k,
                   "rmsnorm_order": stats[k]["order"], "vs_expected": {x: stats[k][x] for x in
                                                                         ("elements", "differ", "frac", "max_ulp",
                                                                          "nan_mismatch")}}
            for v in VARIANTS:
                c = verdicts[v]["tiers"].get(k)
                rc = verdicts[v]["rc"]
                if rc not in (0, 1) or c is None:
                    row[v] = {"verdict": "error", "ok": False, "rc": rc}
                    continue
                passed = bool(c["pass"])
                ve = c.get("vs_emulated", {})
                adm = c.get("admissible", {})
                no_effect = v != "correct" and stats[k]["no_effect"][v]
                # A bug with no effect is the correct output, bit for bit, and its verdict is the correct
                # output's. Only eps x10 may do that, on exact inputs (their mean square dwarfs eps: a bit of N
                # it moves may move no bit of Y) or where it moves no bit of N (outlier and zero rows); any
                # other bug with no effect means its planting is broken, a wrong result of this run.
                excused = no_effect and v == "eps" and (dist == "exact" or stats[k]["eps_inert"])
                row[v] = {"verdict": "pass" if passed else "fail",
                          "ok": True if excused else passed == (v == "correct"),
                          "rc": rc, "no_effect": no_effect, "excused": excused,
                          "frac_differ": ve.get("frac_differ"), "ulp_max": ve.get("ulp_max"),
                          "ulp_hist": ve.get("ulp_hist"),
                          # ltt verify's hints: the truth rounded once; the GEMM's output rounded before the add
                          "missing_rounding_points": bool(adm.get("missing_rounding_points")),
                          "product_rounded_first": bool(adm.get("product_rounded_first")),
                          # the row check (README 'Rows an order moves whole'): rows judged whole, those outside
                          "rows_checked": int(adm.get("rows_checked", 0)),
                          "rows_outside": int(adm.get("rows_outside", 0))}
            row["verify_summary"] = {v: verdicts[v]["summary"] for v in verdicts}
            rows.append(row)
        if not args.keep:
            os.remove(case_path)

        ok_c = sum(1 for r in rows[-len(tiers):] if r["correct"]["ok"])
        ok_b = sum(1 for r in rows[-len(tiers):] for v in VARIANTS[1:] if r[v]["verdict"] == "fail")
        inert = sum(1 for r in rows[-len(tiers):] for v in VARIANTS[1:] if r[v].get("no_effect"))
        print(f"[{idx}/{len(combos)}] {label}: tiers {meta['tiers']}: correct passed {ok_c}/{len(tiers)}, "
              f"bugs failed {ok_b}/{len(VARIANTS[1:]) * len(tiers)}"
              + (f" ({inert} with no effect)" if inert else "")
              + f"; golden {t_golden:.1f} s, torch {t_compute:.1f} s, "
              f"verify {t_verify:.1f} s; elapsed {time.time() - t_start:.1f} s"
              + (f"; graphs compiled so far {dynamo_counters['stats'].get('unique_graphs', 0)}" if args.compile else ""),
              flush=True)
        for v in verdicts:
            for ln in verdicts[v]["summary"]:
                print(f"    {v:8s} verify rc {verdicts[v]['rc']}: {ln}", flush=True)
        if verdicts["correct"]["rc"] != 0:  # a correct output failed: say where
            for ln in verdicts["correct"]["fail_lines"]:
                print(f"    correct  {ln}", flush=True)
        if args.json:  # partial results survive a time limit
            with open(args.json + ".partial", "w") as f:
                json.dump(rows, f)

# ---------------------------------------------------------------------------------------------- report
def cell(x):
    if x["verdict"] == "error":
        return f"ERROR (rc {x['rc']})"
    s = x["verdict"]
    if x.get("frac_differ") is not None:
        s += f" {100 * x['frac_differ']:.3f}%/{x['ulp_max']:g}u"
    if x.get("product_rounded_first"):
        s += " [product rounded first]"
    if x.get("missing_rounding_points"):
        s += " [truth rounded once]"
    if x.get("no_effect"):
        s += " (no effect)"
    return s + ("" if x["ok"] else " <<")


def diff_cell(d):
    s = f"{100 * d['frac']:.3f}% (max {d['max_ulp']} ulp)"
    if d["nan_mismatch"]:
        s += f", {d['nan_mismatch']} NaN mismatch"
    return s


headers = ["T", "M", "dist", "tier", "correct"] + [BUG_TITLES[b] for b in VARIANTS[1:]] + ["differ vs expected.tier{k}"]
table = [[str(r["tp"]), str(r["tokens"]), r["dist"], str(r["tier"]), cell(r["correct"])]
         + [cell(r[b]) for b in VARIANTS[1:]] + [diff_cell(r["vs_expected"])] for r in rows]
widths = [max(len(h), *(len(t[i]) for t in table)) if table else len(h) for i, h in enumerate(headers)]

n_correct = len(rows)
a_correct = sum(1 for r in rows if r["correct"]["ok"])
n_bugs = len(rows) * len(VARIANTS[1:])
c_bugs = sum(1 for r in rows for b in VARIANTS[1:] if r[b]["verdict"] == "fail")
ok_bugs = sum(1 for r in rows for b in VARIANTS[1:] if r[b]["ok"])
n_inert = sum(1 for r in rows for b in VARIANTS[1:] if r[b].get("excused"))
c_effective = sum(1 for r in rows for b in VARIANTS[1:] if r[b]["verdict"] == "fail" and not r[b].get("excused"))
broken = sum(1 for r in rows for b in VARIANTS[1:] if r[b].get("no_effect") and not r[b].get("excused"))
totals = f"correct outputs passed: {a_correct} of {n_correct}; planted bugs failed: {c_bugs} of {n_bugs}"
if n_inert:
    totals += (f" ({n_inert} eps x10 on exact inputs or where it moves no bit of N changed no bit of the output, which is then the correct one "
               f"and no verdict can refuse: {c_effective} of the other {n_bugs - n_inert} failed)")
if broken:
    totals += (f"; {broken} planted bugs changed no bit of the output where only eps x10 on exact inputs or moving no bit of N may: "
               f"their planting is broken")
refused = [r["correct"] for r in rows if r["correct"]["verdict"] == "fail"]
if refused:
    totals += (f"; of the {len(refused)} correct outputs refused, ltt verify says {sum(x['product_rounded_first'] for x in refused)}"
               f" hold the GEMM's output rounded before the add, {sum(x['missing_rounding_points'] for x in refused)}"
               f" the truth rounded once")
rows_c = sum(r["correct"].get("rows_checked", 0) for r in rows)
if rows_c:  # adversarial inputs' order-probe rows; none elsewhere
    totals += (f"; the row check judged {rows_c} rows of the correct outputs whole, "
               f"{sum(r['correct'].get('rows_outside', 0) for r in rows)} outside")
    bug_rows = [r[b] for r in rows for b in VARIANTS[1:] if r[b].get("rows_checked")]
    if bug_rows:
        totals += (f", and failed {sum(x['rows_outside'] > 0 for x in bug_rows)} of the {len(bug_rows)} planted bugs' "
                   f"outputs where it judged rows")
if args.compile:
    totals += " (--compile: bugs not run)"
    graphs = dict(dynamo_counters["stats"])
    totals += f"; torch.compile: {graphs.get('unique_graphs', 0)} graphs compiled, dynamo stats {graphs}"
legend = ("verdicts from `ltt verify` per tier: pass/fail, then its % of elements differing from the emulated "
          "reference / largest ULP at the error scale, and its hint where it gives one ([product rounded first]: "
          "the elements outside hold the GEMM's output rounded to bf16 before the addend was added; [truth rounded "
          "once]: they hold the float64 truth rounded once); '(no effect)': the bug changed no bit of this output "
          "(allowed for eps x10 only on exact inputs or where it moves no bit of N, as on outlier and zero rows; any other is a broken planting "
          "and marked '<<'); '<<' marks a wrong result (a correct output failing, a bug passing). "
          "'differ vs expected.tier{k}': the correct output's elements whose bf16 value differs from the case's "
          "expected.tier{k} (largest plain ULP distance).")

print()
print("  ".join(h.rjust(w) for h, w in zip(headers, widths)))
for t in table:
    print("  ".join(c.rjust(w) for c, w in zip(t, widths)))
print(f"# {legend}")
print(f"# {totals}")
for e in errors:
    print(f"# ERROR: {e}")
print(f"# wall {time.time() - t_start:.1f} s")

env = {"torch": torch.__version__, "cuda": torch.version.cuda, "device": str(device),
       "device_name": torch.cuda.get_device_name(device) if device.type == "cuda" else "cpu",
       "safetensors": __import__("safetensors").__version__ if st_torch else None,
       "python": sys.version.split()[0], "ltt": ltt}
if args.out:
    with open(args.out, "w") as f:
        f.write("# PyTorch-computed tier outputs against `ltt verify`\n\n")
        f.write(f"torch {env['torch']} (CUDA {env['cuda']}) on {env['device_name']}; dims {args.dims}; "
                f"seed {args.seed}; {COMPILED_AS if args.compile else 'eager ops'}; "
                f"GEMMs {args.gemm}; RMSNorm {RMSNORM_AS}\n\n")
        f.write("| " + " | ".join(headers) + " |\n|" + "|".join("---" for _ in headers) + "|\n")
        for t in table:
            f.write("| " + " | ".join(c.replace("|", "\\|") for c in t) + " |\n")
        f.write(f"\n{legend}\n\n**{totals}**\n")
        for e in errors:
            f.write(f"\nERROR: {e}\n")
if args.json:
    with open(args.json, "w") as f:
        json.dump({"env": env, "args": {k: getattr(args, k) for k in ("dims", "tp", "tokens", "dist", "seed",
                                                                      "device", "gemm", "rmsnorm", "golden_norm",
                                                                      "compile", "compile_mode",
                                                                      "gemm_backends", "keep_casts",
                                                                      "dynamic_tokens")},
                   "rows": rows, "errors": errors,
                   "totals": {"correct": n_correct, "correct_passed": a_correct, "bugs": n_bugs,
                              "bugs_failed": c_bugs, "bugs_no_effect_excused": n_inert,
                              "bugs_other_failed": c_effective, "bugs_no_effect_broken": broken}}, f, indent=1)
    if os.path.exists(args.json + ".partial"):  # the whole run is in args.json now
        os.remove(args.json + ".partial")

if not args.keep:
    for d in (cases_dir, outputs_dir):
        shutil.rmtree(d, ignore_errors=True)
if errors:
    sys.exit(2)
sys.exit(0 if (a_correct == n_correct and ok_bugs == n_bugs and n_correct > 0) else 1)
