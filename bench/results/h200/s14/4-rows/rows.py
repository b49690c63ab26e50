# Which rows of a kept torch_tiers.py output differ from the case's expected.tier{k}, and what kind of
# adversarial row each is (reference/inputs.cpp: kind = (seed + row) % 8).
#   python3 rows.py WORK_DIR   (a torch_tiers.py --keep work directory)
import glob, os, sys
import torch
from safetensors.torch import load_file
KINDS = ["signed-zeros", "outlier", "zero-routed", "cancel", "order-probe", "extremes", "subnormal", "plain"]
work = sys.argv[1]
for case in sorted(glob.glob(os.path.join(work, "cases", "*adversarial*.safetensors"))):
    out = os.path.join(work, "outputs", os.path.basename(case))
    if not os.path.exists(out):
        continue
    e, o = load_file(case), load_file(out)
    seed = int(case.split("_seed")[1].split("_")[0])
    for name in sorted(k for k in o if k.startswith("output.tier")):
        k = name[len("output.tier"):].split(".")[0]
        a, b = o[name].view(torch.int16), e[f"expected.tier{k}"].view(torch.int16)
        same = (a == b) | ((a & 0x7FFF) == 0) & ((b & 0x7FFF) == 0) | (o[name].isnan() & e[f"expected.tier{k}"].isnan())
        frac = (~same).float().mean(1)
        rows = [(i, KINDS[(seed + i) % 8], f"{100 * float(frac[i]):.0f}%") for i in range(frac.numel()) if frac[i] > 0.5]
        kinds = sorted({r[1] for r in rows})
        print(f"{os.path.basename(case)} tier {k}: {int((~same).sum())} of {same.numel()} elements differ; "
              f"rows with more than half differing: {len(rows)} {rows[:6]}{' ...' if len(rows) > 6 else ''}; their kinds {kinds}")
