#!/usr/bin/env python3
"""The library composition that ltt bench --backend cuda is measured against,
timed on the same GPU: PyTorch's eager ops and torch.compile of the same step.

  python3 bench/torch/compose.py --json out.json

What it times (k3: L 3584, H 7168; tier 0's shard at T 8: Hs 896), each as
the median per call of CUDA-graph replays of 20 calls in a row (10 replays
after warm-up), so that launch cost is what a captured step pays; the calls
rotate over copies of the operands that come from memory (Z for RMSNorm, W
for tier 0) covering twice the L2 cache, and every call writes its own output,
as ltt bench's do, so that no figure is the cache's:
  - rmsnorm_eager / rmsnorm_compile: N = bf16(bf16(Z * rstd) * g) over
    [M, L], fp32 math, at M 2048 and 8192 (the RMSNorm target);
  - addmm: torch.addmm(S_shard, N, W_shard^T) in bf16 (cuBLAS), M 1..128;
  - tier0_eager / tier0_compile: tier 0's per-rank compute (RMSNorm, the
    shard's up-projection, the shared add), M 1..128;
beside the memory roofline: bytes moved / the copy bandwidth measured here.
"""
import argparse
import json
import statistics

import torch

L, H, T = 3584, 7168, 8
HS = H // T
EPS = 1e-6


def rmsnorm(z, g):
    zf = z.float()
    rstd = torch.rsqrt(zf.pow(2).mean(-1, keepdim=True) + EPS)
    return (zf * rstd).to(torch.bfloat16) * g


def tier0_step(z, g, w, s):
    return torch.addmm(s, rmsnorm(z, g), w.t())


def sets_for(nbytes):
    """Copies of an operand of nbytes that cover twice the L2 cache (1 to 32)."""
    l2 = getattr(torch.cuda.get_device_properties(0), "L2_cache_size", 64 << 20)
    return max(1, min(32, -(-2 * l2 // nbytes)))


def timed(fns, calls=20, replays=10):
    """Median microseconds per call over graph replays of `calls` calls (rounded up to a
    multiple of len(fns)), call i being fns[i % len(fns)]."""
    fns = fns if isinstance(fns, list) else [fns]
    calls = len(fns) * -(-calls // len(fns))
    stream = torch.cuda.Stream()
    stream.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(stream):
        for _ in range(3):
            for fn in fns:
                fn()
    torch.cuda.current_stream().wait_stream(stream)
    graph = torch.cuda.CUDAGraph()
    # Every call's result is kept, so that the graph's memory pool gives each
    # call its own output (a result dropped at once is reused by the next
    # call, whose writes then stay in the L2 cache: a figure faster than the
    # copy of the same bytes). ltt bench rotates its outputs the same way.
    kept = []
    with torch.cuda.graph(graph):
        for i in range(calls):
            kept.append(fns[i % len(fns)]())
    for _ in range(3):
        graph.replay()
    us = []
    for _ in range(replays):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record()
        graph.replay()
        b.record()
        b.synchronize()
        us.append(1e3 * a.elapsed_time(b) / calls)
    return statistics.median(us)


def copy_bandwidth():
    x = torch.empty(1 << 29, dtype=torch.bfloat16, device="cuda")
    y = torch.empty_like(x)
    us = timed(lambda: y.copy_(x), calls=5, replays=10)
    return 2 * x.numel() * 2 / (us * 1e3)  # bytes read + written per ns = GB/s


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--json", help="write the figures here")
    args = ap.parse_args()
    torch.manual_seed(0)
    dev = "cuda"
    timed(lambda: torch.randn(4096, 4096, device=dev) @ torch.randn(4096, 4096, device=dev), calls=50)  # clocks up
    gbs = max(copy_bandwidth() for _ in range(3))
    print(f"copy bandwidth {gbs:.0f} GB/s (read + written), the best of three", flush=True)
    rows = []

    def add(what, M, us, bytes_moved):
        roof = bytes_moved / (gbs * 1e3)
        rows.append({"what": what, "M": M, "median_us": us, "roofline_us": roof, "x_roofline": us / roof})
        print(f"{what:16s} M {M:5d}  {us:9.2f} us   roofline {roof:7.2f} us   x{us / roof:6.2f}", flush=True)

    g = (torch.rand(L, device=dev) + 0.5).to(torch.bfloat16)
    rms_c = torch.compile(rmsnorm, dynamic=False)
    for M in (2048, 8192):
        moved = 2 * M * L * 2 + L * 2
        zs = [torch.randn(M, L, device=dev).to(torch.bfloat16) for _ in range(sets_for(moved))]
        add("rmsnorm_eager", M, timed([lambda z=z: rmsnorm(z, g) for z in zs]), moved)
        add("rmsnorm_compile", M, timed([lambda z=z: rms_c(z, g) for z in zs]), moved)
    w = (torch.randn(HS, L, device=dev) * 0.02).to(torch.bfloat16)
    ws = [w] + [w.clone() for _ in range(sets_for(w.numel() * 2) - 1)]
    step_c = torch.compile(tier0_step, dynamic=False)
    for M in (1, 5, 33, 128):
        z = torch.randn(M, L, device=dev).to(torch.bfloat16)
        s = torch.randn(M, HS, device=dev).to(torch.bfloat16)
        n = rmsnorm(z, g)
        y = torch.empty(M, HS, device=dev, dtype=torch.bfloat16)
        moved = HS * L * 2 + M * L * 2 + 2 * M * HS * 2 + L * 2
        add("addmm", M, timed([lambda w=w: torch.addmm(s, n, w.t(), out=y) for w in ws]), HS * L * 2 + M * L * 2 + 2 * M * HS * 2)
        add("tier0_eager", M, timed([lambda w=w: tier0_step(z, g, w, s) for w in ws]), moved)
        add("tier0_compile", M, timed([lambda w=w: step_c(z, g, w, s) for w in ws]), moved)
    result = {"device": torch.cuda.get_device_name(), "torch": torch.__version__, "copy_GBps": gbs, "rows": rows}
    if args.json:
        with open(args.json, "w") as f:
            json.dump(result, f, indent=1)


if __name__ == "__main__":
    main()
