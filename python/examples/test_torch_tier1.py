"""PyTorch's own tier 1 composition, judged by ltt (run with pytest on the GPU machine:
`LTT=build/release/bin/ltt PYTHONPATH=python pytest python/examples`; on a CPU, device="cpu").

Tier 1's contract: Z = bf16(sum_r R_r) (fp32 accumulation), N = bf16(bf16(Z rstd) g), Y' = bf16(N W^T)
(fp32 accumulation), S = bf16(sum_r S_r), Y = bf16(Y' + S)."""
import os

import pytest

torch = pytest.importorskip("torch")
import ltt  # noqa: E402

DEVICE = os.environ.get("LTT_DEVICE", "cuda" if torch.cuda.is_available() else "cpu")


def tier1_torch(inp, eps=1e-6):
    f32 = torch.float32
    Z = torch.stack(inp["R"]).to(f32).sum(0).to(torch.bfloat16)
    S = torch.stack(inp["S"]).to(f32).sum(0).to(torch.bfloat16)
    rstd = torch.rsqrt(Z.to(f32).pow(2).mean(-1, keepdim=True) + eps)
    N = ((Z.to(f32) * rstd).to(torch.bfloat16).to(f32) * inp["g"].to(f32)).to(torch.bfloat16)
    Yp = (N.to(f32) @ inp["W"].to(f32).T).to(torch.bfloat16)
    return (Yp.to(f32) + S.to(f32)).to(torch.bfloat16)


@pytest.mark.parametrize("tp,tokens,dist", [(8, 5, "realistic"), (8, 33, "adversarial"), (16, 128, "realistic")])
def test_torch_tier1_is_admissible(tp, tokens, dist):
    case = ltt.case(tp=tp, tokens=tokens, dims="small", dist=dist, tiers=[1], device=DEVICE)
    ltt.assert_verified(case, tier1_torch(case.inputs), tier=1)


def test_a_bug_is_caught():
    case = ltt.case(tp=8, tokens=5, dims="small", dist="realistic", tiers=[1], device=DEVICE)
    y = tier1_torch(case.inputs)
    y[2] *= 1.03
    with pytest.raises(AssertionError, match="Mismatched elements"):
        ltt.assert_verified(case, y, tier=1)
