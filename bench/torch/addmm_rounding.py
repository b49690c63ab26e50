#!/usr/bin/env python3
"""How many times does PyTorch's bf16 torch.addmm(C, A, B^T) round?

The contracts of tiers 0, 2, 3 and 4 add the addend in the GEMM's fp32
epilogue and round once: bf16(A B^T + C). PyTorch's addmm copies C into its
output and then calls cuBLAS(Lt) with beta 1 *in place* (C == D), and on the
H200 with CUDA 13.0 cuBLASLt's algorithms without split-K give in place
bf16(bf16(A B^T) + C): two roundings (bench/lt_inplace.cu shows it without
PyTorch). This script measures, at the tiers' GEMM shapes, which of the two
functions torch.addmm computes:

  y    = torch.addmm(C, A, B^T)                   (bf16, as the tiers call it)
  two  = bf16(float(torch.mm(A, B^T)) + float(C))  (product rounded, then the add)
  one  = bf16(torch.addmm(float C, float A, float B^T))  (fp32 throughout, one rounding; TF32 off)

and prints, per shape and BLAS backend, the fraction of elements where y
equals `two` and where it equals `one`. The two differ on about a quarter of
the elements, so a fraction of 1.0 for one and ~0.75 for the other names the
function (the GEMM sums may differ a little between the calls: a fraction
just under 1.0 is a sum order, far under is the other function).

  python3 bench/torch/addmm_rounding.py [--json out.json]
"""
import argparse
import json
import sys

import torch

L, H = 3584, 7168


def shapes():
    # (name, M, n, K): tier 2 and tier 0 (rank r's hidden shard: n = H / T), tier 3 (all of H), tier 4 (latent shard: K = L / T)
    for M in (1, 5, 33, 257, 2048):
        yield f"tier 2 / 0, T 8 (n {H // 8}, K {L})", M, H // 8, L
        yield f"tier 3 (n {H}, K {L})", M, H, L
        yield f"tier 4, T 8 (n {H}, K {L // 8})", M, H, L // 8


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--json", help="write the figures here")
    ap.add_argument("--seed", type=int, default=0)
    a = ap.parse_args()
    if not torch.cuda.is_available():
        print("addmm_rounding.py: no CUDA device for torch", file=sys.stderr)
        sys.exit(2)
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cuda.matmul.allow_bf16_reduced_precision_reduction = False
    dev = torch.device("cuda")
    g = torch.Generator(device=dev).manual_seed(a.seed)
    rows = []
    print(f"torch {torch.__version__} (CUDA {torch.version.cuda}) on {torch.cuda.get_device_name(dev)}")
    print(f"{'backend':9s} {'GEMM':34s} {'M':>5s}  {'y == two':>9s}  {'y == one':>9s}  {'two == one':>10s}")
    for backend in ("cublaslt", "cublas"):
        torch.backends.cuda.preferred_blas_library(backend)
        for i, (name, M, n, K) in enumerate(shapes()):
            g.manual_seed(a.seed * 1000 + i)  # the same operands on both back ends
            A = (torch.rand(M, K, device=dev, generator=g) * 2 - 1).to(torch.bfloat16)
            B = ((torch.rand(n, K, device=dev, generator=g) * 2 - 1) / K ** 0.5).to(torch.bfloat16)
            C = (torch.rand(M, n, device=dev, generator=g) * 2 - 1).to(torch.bfloat16)
            y = torch.addmm(C, A, B.t())
            two = (torch.mm(A, B.t()).float() + C.float()).to(torch.bfloat16)
            one = torch.addmm(C.float(), A.float(), B.float().t()).to(torch.bfloat16)
            f = lambda x, z: (x == z).float().mean().item()  # noqa: E731
            r = {"backend": backend, "gemm": name, "M": M, "n": n, "K": K,
                 "y_eq_two": f(y, two), "y_eq_one": f(y, one), "two_eq_one": f(two, one)}
            rows.append(r)
            print(f"{backend:9s} {name:34s} {M:5d}  {r['y_eq_two']:9.5f}  {r['y_eq_one']:9.5f}  {r['two_eq_one']:10.5f}",
                  flush=True)
    if a.json:
        with open(a.json, "w") as fh:
            json.dump({"torch": torch.__version__, "cuda": torch.version.cuda,
                       "device": torch.cuda.get_device_name(dev), "rows": rows}, fh, indent=1)


if __name__ == "__main__":
    main()
