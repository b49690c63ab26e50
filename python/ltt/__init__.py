"""ltt from Python: golden cases as NumPy arrays (or torch tensors), and the
order-free verdict of `ltt verify` on outputs made anywhere.

    import ltt
    case = ltt.case(tp=8, tokens=5, dims="small", dist="realistic", tiers=[1])
    y = my_tier1(case.inputs)                  # [M, H], NumPy or torch
    ltt.assert_verified(case, y, tier=1)       # raises AssertionError, like torch.testing.assert_close

The package drives the `ltt` binary (found as $LTT, then on PATH, then at
build/release/bin/ltt when imported from a checkout's python/ltt: an installed
copy needs $LTT or PATH); it needs the standard library and NumPy (install with
`pip install --no-index --no-deps ./python` offline), and torch only to return
or accept torch tensors.
"""
from ._core import Case, Verdict, LttError, case, verify, assert_verified, binary

__all__ = ["Case", "Verdict", "LttError", "case", "verify", "assert_verified", "binary"]
__version__ = "0.1.0"
