# write expected.tier{k} back as output with (a) every +0 turned -0 (tiers 1-4) and (b) every NaN's sign/payload changed
import sys, numpy as np
sys.path.insert(0,'/tmp/review'); import impl
meta,t=impl.read_case(sys.argv[1]); mode=sys.argv[3]
outs={}
for k in [int(x) for x in meta['tiers'].split(',')]:
    y=t[f'expected.tier{k}'].copy(); u=y.view(np.uint32)
    if mode=='negzero' and k!=0: u[u==0]=0x80000000
    if mode=='nan': u[np.isnan(y)]=0xFFC10000
    outs[f'output.tier{k}.rank0']=y
    print(k, 'zeros', int((y==0).sum()), 'nans', int(np.isnan(y).sum()))
impl.write_st(sys.argv[2], outs)
