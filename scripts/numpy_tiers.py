#!/usr/bin/env python3
# numpy_tiers.py: do outputs that an independent numpy implementation of every tier computes (code that is
# not ltt's: a reviewer wrote it from DESIGN.md, with its own bf16 rounding) pass
# `ltt verify` whatever orders it chose, and does every planted bug that changes an output fail it?
#
# `ltt golden` writes the case files (every rank's bf16 partials R_r [M, L] and S_r [M, H], g, W, expected
# outputs). For each case this script computes rank 0's output Y [M, H] of every tier with numpy float32
# arithmetic, bf16 rounded to nearest even on the float32 bit patterns at the tier's rounding points:
#   members  --members N correct members, each drawing its own choices (MEMBER_CHOICES, all inside the
#            README's contract): the reduction order (rank order, reversed, a random rank permutation per
#            element, a pairwise tree, fp64, an accumulator started at +0; on ring cases a random rank order
#            per chunk or per element, bf16 at every hop), the sum-of-squares order (sequential, reversed,
#            fp64, numpy's pairwise, a dot product, 4 or 32 interleaved accumulators), the mean by /L or by
#            *fl(1/L), rsqrt correctly rounded, as 1/sqrtf or moved +-1 or +-2 ULP, the fused product's
#            order, the GEMM (BLAS, fp64, K in order or reversed, split-K with 2 to 5 random fp32 partials
#            summed in rank, pairwise or per-element order, S added first or last), FTZ everywhere, in one
#            phase or nowhere. Each must pass (ltt verify exits 0 on every output).
#   bugs     BUGS: the same code with one change; every tier output the bug changes (some bit differs from
#            the default member's, NaN = NaN, -0 = +0) must fail, and every bug must change some output
#            (else its planting broke; NaN to 0 and inf clamped only where some output holds one). A bug may
#            change no bit of some outputs (eps x10 where the mean square dwarfs eps, NaN to 0 where there is
#            no NaN): those are counted apart, not judged.
# One-shot cases run every bug; ring cases only those a ring's own freedom cannot hide (RING_BUGS), and
# where that freedom can cover one (RING_FREE) its outputs may pass: counted and printed, not judged.
# Exit 0 when all of that holds; 1 otherwise; 2 on a usage or input error (ltt missing or exiting 2).
#
#   python3 scripts/numpy_tiers.py --ltt build/release/bin/ltt --work /tmp/numpy_tiers --dims small \
#       --tp 8,16 --tokens 5,33 --dist realistic,adversarial,exact --algo one-shot,ring --members 4
import argparse
import json
import os
import shutil
import subprocess
import sys

import numpy as np

f32 = np.float32

# safetensors: the Python package's reader and writer (python/ltt/_core.py; outputs written as F32, whose
# values here are bf16 values already, so ltt verify's rounding of them is exact).
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'python'))
from ltt._core import LttError, _read, _write  # noqa: E402


# ------------------------------------------------------------------ bf16 / fp32 helpers
def bf16(x):
    """Round float32 array to bf16 (RNE), returned as float32."""
    x = np.asarray(x, dtype=np.float32)
    u = x.view(np.uint32).copy()
    nan = np.isnan(x)
    r = (u + np.uint32(0x7FFF) + ((u >> 16) & np.uint32(1))) & np.uint32(0xFFFF0000)
    r = np.where(nan, (u | np.uint32(0x00400000)) & np.uint32(0xFFFF0000), r)
    return r.astype(np.uint32).view(np.float32)


class Ctx:
    def __init__(self, knobs):
        self.k = knobs
        self.ftz = knobs.get('ftz', '0') == '1'
        self.phases = knobs.get('ftzph', None)  # e.g. 'n' or 'g' or 'r': FTZ only in those phases
        self.rng = np.random.default_rng(int(knobs.get('seed', '1')))

    def set_phase(self, ph):
        if self.phases is not None:
            self.ftz = ph in self.phases

    def fl(self, x):
        x = np.asarray(x, dtype=np.float32)
        if self.ftz:
            x = np.where(np.abs(x) < np.float32(2.0 ** -126), np.copysign(np.float32(0), x), x).astype(np.float32)
        return x

    # fp32 sum over axis 0 of a stack [n, ...] in an order set by position
    def sum_f32(self, X, order):
        n = X.shape[0]
        X = self.fl(X)
        if order == 'rank':
            idx = None
        elif order == 'rev':
            X = X[::-1]
        elif order == 'elem':  # a permutation per element, keyed by position
            keys = self.rng.random(X.shape)
            perm = np.argsort(keys, axis=0)
            X = np.take_along_axis(X, perm, axis=0)
        elif order == 'pair':
            cur = [X[i] for i in range(n)]
            while len(cur) > 1:
                nxt = []
                for i in range(0, len(cur) - 1, 2):
                    nxt.append(self.fl(cur[i] + cur[i + 1]))
                if len(cur) % 2: nxt.append(cur[-1])
                cur = nxt
            return cur[0]
        elif order == 'kahan':
            s = np.zeros(X.shape[1:], np.float32); c = np.zeros_like(s)
            for i in range(n):
                y = self.fl(X[i] - c); t = self.fl(s + y); c = self.fl(self.fl(t - s) - y); s = t
            return s
        elif order == 'f64':
            return self.fl(X.astype(np.float64).sum(axis=0).astype(np.float32))
        elif order == 'zinit':  # accumulator starts at +0.0f
            s = np.zeros(X.shape[1:], np.float32)
            for i in range(n): s = self.fl(s + X[i])
            return s
        s = X[0].copy()
        for i in range(1, n): s = self.fl(s + X[i])
        return s

    def allreduce(self, parts, order=None):  # one-shot: fp32, one rounding
        self.set_phase('r')
        if self.k.get('bug') == 'ar-bf16':  # bf16 arithmetic in the one-shot sum (packed __hadd2)
            p = parts[0]
            for x in parts[1:]: p = bf16(self.fl(p + x))
            return p
        order = order or self.k.get('red', 'rank')
        if self.k.get('algo') == 'ring':
            X = np.stack(parts); T = X.shape[0]; shp = X.shape[1:]
            X = self.fl(X.reshape(T, -1)); n = X.shape[1]
            if self.k.get('ringperm') == 'elem':
                perm = np.argsort(self.rng.random(X.shape), axis=0)
                X = np.take_along_axis(X, perm, axis=0)
                p = X[0]
                for i in range(1, T): p = bf16(self.fl(p + X[i]))
                return p.reshape(shp)
            out = np.empty(n, np.float32); cs = -(-n // T)
            for c0 in range(0, n, cs):
                perm = self.rng.permutation(T) if self.k.get('ringperm', 'rand') == 'rand' else np.roll(np.arange(T), -((c0 // cs + 1) % T))
                p = X[perm[0], c0:c0 + cs]
                for i in range(1, T):
                    p = bf16(self.fl(p + X[perm[i], c0:c0 + cs]))
                out[c0:c0 + cs] = p
            return out.reshape(shp)
        return bf16(self.sum_f32(np.stack(parts), order))

    def sumsq(self, Z):  # Z [M, L] float32 -> fp32 [M]
        m = self.k.get('ss', 'seq')
        L = Z.shape[1]
        sq = self.fl(Z * Z)
        if m == 'seq':
            s = np.zeros(Z.shape[0], np.float32)
            for k in range(L): s = self.fl(s + sq[:, k])
            return s
        if m == 'rev':
            s = np.zeros(Z.shape[0], np.float32)
            for k in range(L - 1, -1, -1): s = self.fl(s + sq[:, k])
            return s
        if m == 'f64':
            return Z.astype(np.float64).__pow__(2).sum(axis=1).astype(np.float32)
        if m == 'np':
            return sq.sum(axis=1, dtype=np.float32)
        if m == 'dot':
            return np.einsum('ij,ij->i', Z, Z).astype(np.float32)
        if m.startswith('acc'):  # acc32: 32 interleaved accumulators then a pairwise tree
            a = int(m[3:])
            accs = np.zeros((Z.shape[0], a), np.float32)
            for k in range(0, L, a):
                w = min(a, L - k)
                accs[:, :w] = self.fl(accs[:, :w] + sq[:, k:k + w])
            return self.sum_f32(accs.T.copy(), 'pair')
        if m == 'kahan':
            return self.sum_f32(sq.T.copy(), 'kahan')
        raise ValueError(m)

    def rstd(self, Z, eps):
        L = Z.shape[1]
        ss = self.sumsq(Z)
        if self.k.get('mean', 'div') == 'div':
            ms = self.fl(ss / f32(L))
        else:
            ms = self.fl(ss * f32(1.0 / L))
        v = self.fl(ms + f32(eps))
        r = self.k.get('rsqrt', 'exact')
        if r == 'exact':
            rs = (1.0 / np.sqrt(v.astype(np.float64))).astype(np.float32)
        elif r == 'div':  # 1/sqrtf
            rs = self.fl(f32(1.0) / np.sqrt(v).astype(np.float32))
        elif r.startswith('ulp'):
            d = int(r[3:])
            rs = (1.0 / np.sqrt(v.astype(np.float64))).astype(np.float32)
            rs = (rs.view(np.int32) + np.int32(d)).view(np.float32)
        else:
            raise ValueError(r)
        return rs

    def rmsnorm(self, Z, g, eps, order):
        self.set_phase('n')
        rs = self.rstd(Z, eps)[:, None]
        if order == 'fused':
            p = self.k.get('prod', 'zrg')
            if p == 'zrg':
                x = self.fl(self.fl(Z * rs) * g[None, :])
            elif p == 'zgr':
                x = self.fl(self.fl(Z * g[None, :]) * rs)
            else:  # rg first
                x = self.fl(Z * self.fl(rs * g[None, :]))
            return bf16(x)
        return bf16(self.fl(bf16(self.fl(Z * rs)) * g[None, :]))

    def gemm(self, N, Wt, S=None):
        """fp32 N @ Wt (+ S in fp32) -> fp32 (before the output rounding)."""
        m = self.k.get('gemm', 'blas')
        self.set_phase('g')
        if self.k.get('bug') == 'gemm-skip-last':
            N = N[:, :-1]; Wt = Wt[:-1, :]
        N = self.fl(N); Wt = self.fl(Wt)
        K = N.shape[1]
        if m == 'blas':
            acc = np.matmul(N, Wt).astype(np.float32)
        elif m == 'f64':
            acc = (N.astype(np.float64) @ Wt.astype(np.float64)).astype(np.float32)
        elif m in ('seq', 'revk'):
            rng = range(K) if m == 'seq' else range(K - 1, -1, -1)
            acc = np.zeros((N.shape[0], Wt.shape[1]), np.float32)
            if S is not None and self.k.get('sfirst', '0') == '1':
                acc = self.fl(S.copy()); S = None
            for k in rng:
                acc = self.fl(acc + self.fl(N[:, k:k + 1] * Wt[k:k + 1, :]))
        elif m.startswith('split'):
            ns = int(m[5:])
            cuts = np.sort(self.rng.choice(np.arange(1, K), size=ns - 1, replace=False)) if ns > 1 else []
            b = [0] + list(cuts) + [K]
            parts = [np.matmul(N[:, b[i]:b[i + 1]], Wt[b[i]:b[i + 1], :]).astype(np.float32) for i in range(ns)]
            if self.k.get('bug') == 'splitk-bf16':
                parts = [bf16(p) for p in parts]
            if S is not None:
                parts = ([S] + parts) if self.k.get('sfirst', '0') == '1' else (parts + [S])
                S = None
            return self.sum_f32(np.stack(parts), self.k.get('splitorder', 'rank'))
        else:
            raise ValueError(m)
        if S is not None:
            acc = self.fl(acc + S)
        return acc


def run_tier(c, tier, meta, t, bug):
    T = int(meta['tp']); M = int(meta['tokens']); H = int(meta['hidden']); L = int(meta['latent'])
    eps = float(meta['eps'])
    R = [t[f'routed.rank{r}'] for r in range(T)]
    S = [t[f'shared.rank{r}'] for r in range(T)]
    g = t['norm_weight'].copy(); W = t['up_weight']
    Wt = np.ascontiguousarray(W.T)
    order = meta['rmsnorm_order']
    if order == 'declared':
        order = 'fused' if tier == 0 else 'rtw'
    elif order == 'round-then-weight':
        order = 'rtw'
    Hs = H // T; Ls = L // T
    # ---- planted bugs (each alone)
    if bug == 'eps10': eps = eps * 10
    if bug == 'eps2': eps = eps * 2
    if bug == 'drop-r': R = R[:-1]
    if bug == 'drop-s': S = S[:-1]
    if bug == 'double-r': R = R + [R[-1]]
    if bug == 'g1': g = g + f32(1.0)  # (1 + w) convention applied to a plain weight
    if bug == 'gshift': g = np.roll(g, 1)

    def norm(Z):
        if bug == 'ss-skip-last':
            Zs = Z[:, :-1]
            ss = c.sumsq(Zs)
            rs = (1.0 / np.sqrt((c.fl(ss / f32(L)) + f32(eps)).astype(np.float64))).astype(np.float32)[:, None]
        elif bug == 'mean-lm1':
            ss = c.sumsq(Z)
            rs = (1.0 / np.sqrt((c.fl(ss / f32(L - 1)) + f32(eps)).astype(np.float64))).astype(np.float32)[:, None]
        elif bug == 'no-eps':
            ss = c.sumsq(Z)
            rs = (1.0 / np.sqrt((c.fl(ss / f32(L))).astype(np.float64))).astype(np.float32)[:, None]
        elif bug == 'rstd-bf16':
            rs = bf16(c.rstd(Z, eps))[:, None]
        elif bug == 'zfp32':  # norm from fp32 Z (rounding point removed) -- handled by caller
            return c.rmsnorm(Z, g, eps, order)
        else:
            return c.rmsnorm(Z, g, eps, order)
        if order == 'fused':
            return bf16(c.fl(c.fl(Z * rs) * g[None, :]))
        return bf16(c.fl(bf16(c.fl(Z * rs)) * g[None, :]))

    def reduceZ(parts):
        if bug == 'zfp32':
            return c.sum_f32(np.stack(parts), c.k.get('red', 'rank'))
        return c.allreduce(parts)

    if tier in (0, 1, 2, 4):
        Z = reduceZ(R)
        if bug == 'rtw-in-t0' and tier == 0:
            rs = c.rstd(Z, eps)[:, None]
            N = bf16(c.fl(bf16(c.fl(Z * rs)) * g[None, :]))
        else:
            N = norm(Z)
    if tier == 0:
        Y = np.zeros((M, H), np.float32)
        for r in range(T):
            sh = slice(r * Hs, (r + 1) * Hs)
            Sr = c.allreduce([s[:, sh] for s in S])
            if bug == 'shard-s-next':
                sh2 = slice(((r + 1) % T) * Hs, ((r + 1) % T + 1) * Hs)
                Sr = c.allreduce([s[:, sh2] for s in S])
            acc = c.gemm(N, Wt[:, sh], Sr)
            if bug == 'round-then-add':
                acc = c.fl(bf16(c.gemm(N, Wt[:, sh])) + Sr)
            y = bf16(acc)
            y = np.where(y == 0, f32(0.0), y)  # Lamport writer: -0 -> +0
            Y[:, sh] = y
    elif tier == 1:
        Yp = bf16(c.gemm(N, Wt))
        Ssum = c.allreduce(S, None)
        if bug == 'fused-add':
            Y = bf16(c.gemm(N, Wt, Ssum))
        else:
            Y = bf16(c.fl(Yp + Ssum))
    elif tier == 2:
        P = []
        for r in range(T):
            Pr = S[r].copy() if r < len(S) else np.zeros((M, H), np.float32)
            sh = slice(r * Hs, (r + 1) * Hs)
            if bug == 'round-then-add':
                Pr[:, sh] = bf16(c.fl(bf16(c.gemm(N, Wt[:, sh])) + Pr[:, sh]))
            else:
                Pr[:, sh] = bf16(c.gemm(N, Wt[:, sh], Pr[:, sh]))
            P.append(Pr)
        Y = c.allreduce(P)
    elif tier == 3:
        C = [np.concatenate([R[r] if r < len(R) else np.zeros_like(R[0]), S[r] if r < len(S) else np.zeros_like(S[0])], axis=1)
             for r in range(max(len(R), len(S)))]
        if bug == 'double-r':
            C = [np.concatenate([R[r], S[r] if r < len(S) else np.zeros_like(S[0])], axis=1) for r in range(len(R))]
        Cs = reduceZ(C) if bug != 'zfp32' else c.sum_f32(np.stack(C), 'rank')
        Z = Cs[:, :L]; Ssum = bf16(Cs[:, L:]) if bug == 'zfp32' else Cs[:, L:]
        N = norm(Z)
        acc = c.gemm(N, Wt, Ssum)
        if bug == 'round-then-add':
            acc = c.fl(bf16(c.gemm(N, Wt)) + Ssum)
        Y = bf16(acc)
    elif tier == 4:
        P = []
        for r in range(T):
            ls = slice(r * Ls, (r + 1) * Ls)
            Sr = S[r] if r < len(S) else np.zeros((M, H), np.float32)
            acc = c.gemm(np.ascontiguousarray(N[:, ls]), np.ascontiguousarray(Wt[ls, :]), Sr)
            if bug == 'round-then-add':
                acc = c.fl(bf16(c.gemm(np.ascontiguousarray(N[:, ls]), np.ascontiguousarray(Wt[ls, :]))) + Sr)
            P.append(bf16(acc))
        Y = c.allreduce(P)
    if bug == 'row-dup' and M > 2:
        Y = Y.copy(); Y[M // 2] = Y[M // 2 - 1]
    if bug == 'nan-to-zero':
        Y = np.where(np.isnan(Y), f32(0), Y)
    if bug == 'satfinite':
        big = f32(3.3895313892515355e38)
        Y = np.where(np.isposinf(Y), big, np.where(np.isneginf(Y), -big, Y)).astype(np.float32)
    if bug == 'row-scale':
        Y = Y.copy(); Y[M // 2] = bf16(Y[M // 2] * f32(1.01))
    return Y


# The choices a correct member draws from (README, 'The contract'): each member takes one value per knob.
MEMBER_CHOICES = {
    'red': ['rank', 'rev', 'elem', 'pair', 'f64', 'zinit'],
    'ringperm': ['rand', 'elem', 'rot'],
    'ss': ['seq', 'rev', 'f64', 'np', 'dot', 'acc4', 'acc32'],
    'mean': ['div', 'mul'],
    'rsqrt': ['exact', 'div', 'ulp-2', 'ulp-1', 'ulp1', 'ulp2'],
    'prod': ['zrg', 'zgr', 'rg'],
    'gemm': ['blas', 'f64', 'seq', 'revk', 'split2', 'split3', 'split5'],
    'sfirst': ['0', '1'],
    'splitorder': ['rank', 'pair', 'elem'],
    'ftz': ['0', '1'],
    'ftzph': ['', 'r', 'n', 'g'],
}
# Planted bugs, each alone (knobs beside `bug` set what the bug needs, e.g. a split-K GEMM).
BUGS = ['drop-r', 'drop-s', 'double-r', 'g1', 'gshift', 'mean-lm1', 'ss-skip-last', 'rstd-bf16', 'no-eps',
        'eps10', 'eps2', 'zfp32', 'ar-bf16', 'bug=splitk-bf16,gemm=split2', 'gemm-skip-last', 'round-then-add',
        'fused-add', 'rtw-in-t0', 'shard-s-next', 'row-dup', 'row-scale', 'nan-to-zero', 'satfinite']
# On ring cases, the bugs that move an output by more than a bf16 rounding at every hop can: a partial dropped
# or doubled, g ignored, a row copied. The smaller ones (eps x10, a bf16 sum of squares, ...) stay inside a
# ring's freedom (README, 'Ring verdicts are weaker').
RING_BUGS = ['drop-s', 'drop-r', 'double-r', 'g1', 'row-dup']
# (bug, tier, T) whose outputs may pass on ring cases, and why. Tier 4 sums Y itself by a ring: at T 16 its 15
# hops each round a partial sum of the shared outputs (and the shards' products) to bf16, a freedom of several
# ULPs of Y per element; on exact inputs (S_r up to 2, R_r up to 2^-3) a routed partial dropped or doubled moves
# Y by less than that, and passes (README, 'Ring verdicts are weaker').
RING_FREE = {(bug, 4, 16): 'tier 4 sums Y by a ring of 15 bf16 roundings' for bug in ('drop-r', 'double-r')}
# Bugs that act on NaN and inf alone: with no NaN or inf in any output they change nothing, and say so.
NONFINITE_BUGS = ('nan-to-zero', 'satfinite')


def member_knobs(seed):
    rng = np.random.default_rng(seed)
    k = {name: str(rng.choice(vals)) for name, vals in MEMBER_CHOICES.items()}
    if not k['ftzph']:
        del k['ftzph']
    k['seed'] = str(seed)
    return k


def bug_knobs(spec):
    if '=' not in spec:
        return {'bug': spec}
    return dict(kv.split('=') for kv in spec.split(','))


def outputs(meta, t, knobs):
    knobs = dict(knobs)
    if meta['algo'] == 'ring':
        knobs['algo'] = 'ring'
    c = Ctx(knobs)
    out = {}
    for k in [int(x) for x in meta['tiers'].split(',')]:
        with np.errstate(all='ignore'):
            out[k] = run_tier(c, k, meta, t, knobs.get('bug', ''))
    return out


def die(msg):
    print(f'numpy_tiers: {msg}', file=sys.stderr)
    sys.exit(2)


def verify(ltt, cases, outdir, jpath):
    """ltt verify over the directories: {(case file name, tier): pass}."""
    r = subprocess.run([ltt, 'verify', '--case', cases, '--output', outdir, '--json', jpath],
                       capture_output=True, text=True)
    if r.returncode not in (0, 1):
        die(f'ltt verify exited {r.returncode}: {r.stderr[-2000:]}{r.stdout[-2000:]}')
    res = {(os.path.basename(c['case_file']), int(c['tier'])): bool(c['pass']) for c in json.load(open(jpath))['cases']}
    if not res:
        die('ltt verify judged no output')
    return res


def main():
    p = argparse.ArgumentParser(description='An independent numpy implementation of every tier against ltt verify: '
                                'correct members with their own orders must pass, planted bugs must fail.')
    p.add_argument('--ltt', required=True, help='path to the ltt binary')
    p.add_argument('--work', required=True, help='work directory (emptied first)')
    p.add_argument('--dims', default='small', help='small, k3 or H,L (passed to ltt golden)')
    p.add_argument('--tp', default='8,16', help='TP sizes, comma-separated')
    p.add_argument('--tokens', default='5,33', help='token counts M, comma-separated')
    p.add_argument('--dist', default='realistic,adversarial,exact', help='distributions, comma-separated')
    p.add_argument('--algo', default='one-shot,ring', help='one-shot, ring or both, comma-separated')
    p.add_argument('--members', type=int, default=4, help='correct members per case (seeds 1..N)')
    p.add_argument('--seed', type=int, default=0, help='input seed (passed to ltt golden)')
    a = p.parse_args()
    if not os.access(a.ltt, os.X_OK):
        die(f'no ltt binary at {a.ltt}: build it first (cmake --build --preset release)')
    if a.members < 1:
        die('--members must be at least 1')
    shutil.rmtree(a.work, ignore_errors=True)
    bad = []
    for algo in a.algo.split(','):
        if algo not in ('one-shot', 'ring'):
            die(f'--algo {algo}: use one-shot or ring')
        cases = os.path.join(a.work, algo, 'cases')
        r = subprocess.run([a.ltt, 'golden', '--out', cases, '--dims', a.dims, '--tp', a.tp, '--tokens', a.tokens,
                            '--dist', a.dist, '--seed', str(a.seed), '--algo', algo], capture_output=True, text=True)
        if r.returncode != 0:
            die(f'ltt golden exited {r.returncode}: {r.stderr[-2000:]}')
        files = sorted(f for f in os.listdir(cases) if f.endswith('.safetensors'))
        try:
            loaded = {f: _read(os.path.join(cases, f))[::-1] for f in files}  # (metadata, tensors)
        except LttError as e:
            die(str(e))
        base = {f: outputs(m, t, {}) for f, (m, t) in loaded.items()}

        def judge(name, knobs):
            od = os.path.join(a.work, algo, name)
            os.makedirs(od)
            ys = {}
            for f, (m, t) in loaded.items():
                ys[f] = outputs(m, t, knobs)
                _write(os.path.join(od, f), {f'output.tier{k}.rank0': y for k, y in ys[f].items()})
            res = verify(a.ltt, cases, od, od + '.json')
            unjudged = [(f, k) for f in files for k in ys[f] if (f, k) not in res]
            if unjudged:
                die(f'{name}: ltt verify gave no verdict on {len(unjudged)} outputs, e.g. {unjudged[0]}')
            return ys, res

        members_failed = 0
        for s in range(1, a.members + 1):
            knobs = member_knobs(s)
            _, res = judge(f'member{s}', knobs)
            fails = sorted(k for k, ok in res.items() if not ok)
            members_failed += len(fails)
            print(f'{algo} member {s} ({",".join(f"{k}={v}" for k, v in knobs.items())}): '
                  f'{len(res) - len(fails)} of {len(res)} outputs pass')
            for f, k in fails:
                print(f'  !!! a correct member failed: {f} tier {k}')
                bad.append(f'{algo} member {s}: {f} tier {k}')
        for spec in (BUGS if algo == 'one-shot' else RING_BUGS):
            knobs = bug_knobs(spec)
            ys, res = judge('bug-' + spec.replace('=', '-').replace(',', '_'), knobs)
            # Against the same member without the bug (its other knobs, e.g. the split-K GEMM, are correct).
            rest = {k: v for k, v in knobs.items() if k != 'bug'}
            ref = {f: outputs(m, t, rest) for f, (m, t) in loaded.items()} if rest else base
            changed = [(f, k) for f in files for k in ys[f]
                       if not np.all((ys[f][k] == ref[f][k]) | (np.isnan(ys[f][k]) & np.isnan(ref[f][k])))]
            def free_key(fk):  # (bug, tier, T) of an output, as RING_FREE names them
                return knobs['bug'], fk[1], int(loaded[fk[0]][0]['tp'])
            free = [fk for fk in changed if algo == 'ring' and free_key(fk) in RING_FREE]
            missed = [fk for fk in changed if res[fk] and fk not in free]
            judged = len(changed) - len(free)
            print(f'{algo} bug {spec}: changed {len(changed)} of {len(res)} outputs, {judged - len(missed)} '
                  f'of the {judged} judged fail')
            if free:
                print(f'  not judged: {len(free)} outputs ({RING_FREE[free_key(free[0])]}), '
                      f'{sum(not res[fk] for fk in free)} of them fail')
            for f, k in missed:
                print(f'  !!! a bug passed: {f} tier {k}')
                bad.append(f'{algo} bug {spec}: {f} tier {k} passed')
            if not changed and knobs['bug'] in NONFINITE_BUGS and \
                    all(np.isfinite(y).all() for f in files for y in ref[f].values()):
                print(f'  (no effect: no output here holds a NaN or an inf; adversarial cases hold them from M 33)')
            elif not changed:
                print(f'  !!! bug {spec} changed no output: its planting is broken')
                bad.append(f'{algo} bug {spec}: changed nothing')
        print(f'# {algo}: {len(files)} cases; {a.members} members, {members_failed} outputs failed')
    if bad:
        print(f'# numpy_tiers: {len(bad)} wrong verdicts or broken plantings')
        return 1
    print('# numpy_tiers: every correct member passed; every output a bug changed failed')
    return 0


if __name__ == '__main__':
    sys.exit(main())
