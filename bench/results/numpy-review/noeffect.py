# noeffect.py CASEDIR BUG : for each case, per tier, elements differing between bug and correct (x=1) outputs
import sys, os, subprocess, numpy as np
sys.path.insert(0, '/tmp/review'); import impl
d, bug = sys.argv[1], sys.argv[2]
for cf in sorted(os.listdir(d)):
    if not cf.endswith('.safetensors') or 'exact' not in cf: continue
    c = os.path.join(d, cf)
    subprocess.run(['/usr/bin/python3', '/tmp/review/impl.py', c, '/tmp/review/ne_a.st', bug], check=True)
    subprocess.run(['/usr/bin/python3', '/tmp/review/impl.py', c, '/tmp/review/ne_b.st', 'x=1'], check=True)
    _, a = impl.read_case('/tmp/review/ne_a.st'); _, b = impl.read_case('/tmp/review/ne_b.st')
    print(bug, cf[:26], [int((a[k] != b[k]).sum()) for k in sorted(a)])
