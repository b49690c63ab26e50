#!/usr/bin/env python3
"""drive.py CASEDIR OUTDIR VARIANT... : run impl.py for each case x variant, ltt verify, tabulate per tier."""
import os, subprocess, sys, re, json
LTT = '/work/main/build/release/bin/ltt'
cdir, odir, variants = sys.argv[1], sys.argv[2], sys.argv[3:]
os.makedirs(odir, exist_ok=True)
res = {}
for cf in sorted(os.listdir(cdir)):
    if not cf.endswith('.safetensors'): continue
    for v in variants:
        tag = v.replace('=', '-').replace(',', '_')
        of = os.path.join(odir, tag + '__' + cf)
        p = subprocess.run(['/usr/bin/python3', '/tmp/review/impl.py', os.path.join(cdir, cf), of, v], capture_output=True, text=True)
        if p.returncode: print('IMPL FAIL', cf, v, p.stderr[-500:]); continue
        q = subprocess.run([LTT, 'verify', '--case', os.path.join(cdir, cf), '--output', of], capture_output=True, text=True)
        for line in q.stdout.splitlines():
            m = re.match(r'\s+(\d)\s+(\d+)\s+(\d+)\s+(\S+)\s+(\S+)\s+(\d+)\s+(\S+)\s+(\S+)\s+(.*)$', line)
            if m:
                ok = line.split()[-1]
                res.setdefault(v, []).append((cf, int(m.group(1)), ok, line))
                if ok != 'ok':
                    print(f'[{v}] {cf}:\n   {line}')
        if q.returncode == 2: print('VERIFY rc2', cf, v, q.stdout[-800:], q.stderr[-800:])
        os.remove(of) if os.environ.get('KEEP') is None else None
for v, rows in res.items():
    n = len(rows); f = sum(1 for r in rows if r[2] != 'ok')
    print(f'SUMMARY {v}: {n} tier outputs, {f} failed')
