#!/usr/bin/env python3
"""Checks the JSON and Markdown that `ltt check` wrote against the schema in
README.md, with nothing but the standard library: every case has its fields
with the right types, the figures are consistent (histogram sums to M*H,
pass agrees with the criteria), and the summary counts the cases."""
import json
import sys

doc = json.load(open(sys.argv[1]))
md = open(sys.argv[2]).read()
for key in ("ltt_version", "command", "backend", "processes", "criteria", "cases", "summary"):
    assert key in doc, key
cases = doc["cases"]
assert cases, "no cases"
assert doc["summary"]["cases"] == len(cases)
assert doc["summary"]["failed"] == sum(not c["pass"] for c in cases)
# Notes: a run with ring cases says that their sets are wide; one without has
# no such note. A tier the selection skipped (tier 0 past M 128) is named, and
# only a tier no case of that T and M ran.
ring = sum(c["algo"] == "ring" and c["tp"] > 2 for c in cases)  # at T 2 a ring is judged as one-shot: no note
skips = [n for n in doc["notes"] if " skipped at " in n]
assert sorted(doc["notes"]) == sorted(([] if ring == 0 else [n for n in doc["notes"] if "reduce by a ring" in n]) + skips), doc["notes"]
for n in skips:
    tier = int(n.split()[1])
    for shape in n.split(" skipped at ")[1].split(" (")[0].split(", "):
        T, M = int(shape.split()[1]), int(shape.split()[3])
        assert tier == 0 and (M > 128 or T < 2), n
        assert not any(c["tier"] == tier and c["tp"] == T and c["tokens"] == M for c in cases), (n, "ran")
assert (ring == 0) == (not any(f"{ring} of {len(cases)} cases reduce by a ring" in n for n in doc["notes"])), doc["notes"]
crit = doc["criteria"]
for c in cases:
    for key, typ in (("tier", int), ("tp", int), ("tokens", int), ("hidden", int), ("latent", int), ("dist", str),
                     ("algo", str), ("rmsnorm_order", str), ("pass", bool), ("deterministic", bool),
                     ("ranks_agree", bool), ("unwritten", int), ("production_gate_failures", int)):
        # A stopped case (no output) has no rank, rerun or gate figure: null, and only then.
        if key in ("deterministic", "ranks_agree", "production_gate_failures") and c["stopped"]:
            assert c[key] is None, (key, c[key])
        else:
            assert isinstance(c[key], typ), (key, c[key])
    t = c["vs_truth"]
    # The error figures: null for a stopped case (no output), "inf" where an element's NaN/Inf class differs from
    # the truth's (as the table's err/bnd), else numbers.
    for key in ("max_abs", "max_rel", "max_err_over_bound", "p999_err_over_bound"):
        if c["stopped"]:
            assert t[key] is None, (key, t[key])
        elif t["nonfinite_mismatch"] > 0 and key != "p999_err_over_bound":
            assert t[key] == "inf", (key, t[key])
        else:
            assert t[key] == "inf" or isinstance(t[key], (int, float)) and t[key] >= 0, (key, t[key])
    assert (c["elements"] is None) == bool(c["stopped"]) and (c["stopped"] or c["elements"] == c["tokens"] * c["hidden"]), c
    # The normwise relative error: a number, or null with the reason (a truth spanning many decades).
    if c["stopped"]:
        assert t["normwise_rel"] is None, t
    elif t["nonfinite_mismatch"] > 0:
        assert t["normwise_rel"] == "inf", t
    elif t["normwise_rel"] is None:
        assert "decades" in t["normwise_note"] and c["dist"] == "adversarial", t
    else:
        assert isinstance(t["normwise_rel"], (int, float)) and t["normwise_rel"] >= 0 and t["normwise_note"] == "", t
    # --gemm-algos: each cuBLASLt algorithm run, with its verdict; the case passes only if every one did.
    g = c["gemm_algos"]
    assert isinstance(g, list), c
    for x in g:
        assert isinstance(x["index"], int) and x["index"] >= 0 and isinstance(x["algo"], str) and x["algo"], x
        assert isinstance(x["pass"], bool), x
    assert not g or c["pass"] == all(x["pass"] for x in g), c
    e = c["vs_emulated"]
    # Every element counted once; a stopped case has no output, so none.
    assert sum(e["ulp_hist"]) == (0 if c["stopped"] else c["tokens"] * c["hidden"]), c
    # Rows moved whole: at most M, each moving more than half its H elements, and counted by kind on adversarial inputs.
    assert isinstance(e["rows_moved"], int) and 0 <= e["rows_moved"] <= c["tokens"], c
    assert e["rows_moved"] * c["hidden"] / 2 < c["tokens"] * c["hidden"] - e["ulp_hist"][0] or e["rows_moved"] == 0, c
    if c["dist"] == "adversarial":
        assert sum(e["rows_moved_kinds"].values()) == e["rows_moved"], c
    else:
        assert e["rows_moved_kinds"] == {}, c
    a = c["admissible"]
    for key in ("outside", "ambiguous", "unbounded"):
        assert isinstance(a[key], int) and a[key] >= 0, (key, a)
    strict = not c["stopped"] and ((crit["ulp_max"] is not None and not (0 <= e["ulp_max"] <= crit["ulp_max"])) or
                                   (crit["ulp_frac"] is not None and e["frac_differ"] > crit["ulp_frac"]))
    expect = bool(a["outside"] == 0 and not strict and c["ranks_agree"] and c["deterministic"] and c["unwritten"] == 0
              and c["stopped"] == "")
    assert c["failed_checks"] == [] if expect else c["failed_checks"], c
    assert c["pass"] == expect, c
    assert f"| {c['tier']} | {c['tp']} | {c['tokens']} | {c['dist']} |" in md, c
print(f"{len(cases)} cases: JSON and Markdown consistent")
