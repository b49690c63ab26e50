#!/usr/bin/env python3
"""The truth rounded once, judged by `ltt verify` (Python's standard library alone).

An output computed with none of a tier's intermediate bf16 roundings (Z, N,
S's sum, the GEMM's output kept in fp32) is, up to fp32 noise, the float64
truth rounded once to bf16. torch.compile's Inductor computes PyTorch's tiers
so when it drops fp32 -> bf16 -> fp32 casts (README, "PyTorch on the GPU
machine"). For every (T, M, dist) this writes a case with `ltt golden`, that
rounding of its `expected_exact` as every tier's output, and runs `ltt verify`
on it, which must fail every tier (exit 1) and flag each as missing its
rounding points (JSON admissible.missing_rounding_points). Per tier it prints
the elements outside their sets and those differing from expected.tier{k}
(both as ltt verify's JSON counts them); with --against, a torch_tiers.py JSON's counts of the latter beside them (the
comparison behind the README's figures).

usage: rounded_truth.py LTT WORKDIR [--dims small] [--tp 8] [--tokens 1,5,33]
                        [--dist realistic,adversarial] [--against torch_tiers.json]
Exit 0 when every tier failed and was flagged, 1 otherwise, 2 on bad usage.
"""
import argparse
import json
import math
import os
import struct
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import stfile  # noqa: E402


def bf16_bits(x):
    """The bf16 nearest the double x (ties to even), as 16 bits (infinity past bf16's range); None for NaN."""
    if math.isnan(x):
        return None
    if abs(x) >= 2.0 ** 128 - 2.0 ** 119:  # at or past the midpoint above bf16's largest finite value: infinity
        return 0xFF80 if x < 0 else 0x7F80
    f = struct.unpack("<I", struct.pack("<f", x))[0]  # only to find x's neighbourhood (may round to f32's inf)
    if f & 0x7FFFFFFF == 0x7F800000:
        f -= 1  # the largest finite f32 of that sign: its neighbourhood holds the answer
    base = f & 0xFFFF0000
    best = None
    for c in (base - 0x10000, base, base + 0x10000):
        if not 0 <= c <= 0xFFFF0000:
            continue
        v = struct.unpack("<f", struct.pack("<I", c))[0]
        if not math.isfinite(v):
            continue
        key = (abs(v - x), (c >> 16) & 1)  # the nearer; on a tie the even one
        if best is None or key < best[0]:
            best = (key, c >> 16)
    return best[1] if best else None


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("ltt")
    p.add_argument("work")
    p.add_argument("--dims", default="small")
    p.add_argument("--tp", type=int, default=8)
    p.add_argument("--tokens", default="1,5,33")
    p.add_argument("--dist", default="realistic,adversarial")
    p.add_argument("--against", help="a torch_tiers.py --json file: its outputs' counts differing from expected")
    a = p.parse_args()
    try:
        tokens = [int(x) for x in a.tokens.split(",") if x]
    except ValueError:
        p.error("--tokens takes comma-separated integers")
    against = {}
    if a.against:
        for r in json.load(open(a.against))["rows"]:
            against[(r["tp"], r["tokens"], r["dist"], r["tier"])] = r["vs_expected"]["differ"]
    os.makedirs(a.work, exist_ok=True)
    bad = 0
    print(f"{'T':>3} {'M':>5} {'dist':>11} tier {'outside':>8} {'flagged':>7} {'differ':>8}" + ("  against" if against else ""))
    for M in tokens:
        for dist in [d for d in a.dist.split(",") if d]:
            gold = os.path.join(a.work, f"T{a.tp}_M{M}_{dist}")
            subprocess.run([a.ltt, "golden", "--out", gold, "--dims", a.dims, "--tp", str(a.tp), "--tokens", str(M),
                            "--dist", dist, "--tier", "all"], check=True, stdout=subprocess.DEVNULL)
            entry = json.load(open(os.path.join(gold, "manifest.json")))["files"][0]
            case = os.path.join(gold, entry["file"])
            t, meta = stfile.read(case)
            dtype, shape, raw = t["expected_exact"]
            assert dtype == "F64", dtype
            truth = struct.unpack(f"<{len(raw) // 8}d", raw)
            bits = [bf16_bits(x) for x in truth]
            tiers = [int(k) for k in meta["tiers"].split(",")]
            # Elements the truth leaves without a bf16 value (NaN, past the range) take the reference's.
            outs = {}
            for k in tiers:
                want = struct.unpack(f"<{len(truth)}H", t[f"expected.tier{k}"][2])
                outs[f"output.tier{k}.rank0"] = ("BF16", shape, struct.pack(f"<{len(truth)}H", *(
                    b if b is not None else w for b, w in zip(bits, want))))
            out_path = os.path.join(gold, "rounded_truth.safetensors")
            stfile.write(out_path, outs)
            report = os.path.join(gold, "verify.json")
            r = subprocess.run([a.ltt, "verify", "--case", case, "--output", out_path, "--json", report],
                               capture_output=True, text=True)
            if r.returncode != 1:
                print(f"ltt verify exited {r.returncode}, not 1: {r.stderr.strip()}")
                bad += 1
                continue
            cases = json.load(open(report))["cases"]
            if sorted(int(c["tier"]) for c in cases) != sorted(tiers):
                print(f"ltt verify judged tiers {[c['tier'] for c in cases]}, not the case's {tiers}")
                bad += 1
            for c in cases:
                k, adm = int(c["tier"]), c["admissible"]
                flagged = bool(adm.get("missing_rounding_points"))
                ok = not c["pass"] and flagged
                bad += 0 if ok else 1
                differ = c["elements"] - c["vs_emulated"]["ulp_hist"][0]  # elements unequal to expected.tier{k}
                extra = f"  {against.get((a.tp, M, dist, k), '-')}" if against else ""
                print(f"{a.tp:>3} {M:>5} {dist:>11} {k:>4} {adm['outside']:>8} {'yes' if flagged else 'NO':>7} "
                      f"{differ:>8}{extra}{'' if ok else '  <<'}")
    print(f"# {'every tier failed and was flagged' if bad == 0 else f'{bad} tier(s) passed or were not flagged'}")
    return 0 if bad == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
