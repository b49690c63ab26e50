import sys, numpy as np
sys.path.insert(0,'/tmp/review'); from impl import read_case
meta,t=read_case(sys.argv[1]); _,o=read_case(sys.argv[2]); k=int(sys.argv[3])
y=o[f'output.tier{k}.rank0'].astype(np.float64); e=t[f'expected.tier{k}'].astype(np.float64); x=t['expected_exact']
d=y-e; i=np.unravel_index(np.nanargmax(np.abs(d)),d.shape)
print('differ frac',np.mean(d!=0),'max |d|',np.abs(d)[i],'at',i,'y',y[i],'exp',e[i],'exact',x[i])
rel=(y-x)/np.abs(x); print('median rel err', np.nanmedian(rel), 'mean', np.nanmean(rel[np.isfinite(rel)]))
