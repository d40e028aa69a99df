"""The Chrome/Perfetto trace of ``asmgen profile --trace`` nests properly on every track: Perfetto's
importer and the Trace Event Format accept complete ("X") events on one thread only when each pair
is disjoint or one contains the other (isa.cycle.report.chrome_trace). Proven on the traces of a
small GEMM and a small attention kernel, whose raw slices do overlap (so the split is exercised),
and on hand-made slices for the lane assignment."""
from __future__ import annotations

import json
from collections import defaultdict

import pytest

from isa.cycle.report import _lanes, chrome_trace


def partial_overlaps(trace: dict) -> list[tuple]:
    """Pairs of X events on one (pid, tid) that overlap without nesting (a stack walk in start
    order, longer first on ties)."""
    tracks = defaultdict(list)
    for e in trace["traceEvents"]:
        if e.get("ph") == "X":
            tracks[(e["pid"], e["tid"])].append((e["ts"], e["ts"] + e["dur"], e["name"]))
    bad = []
    for key, slices in tracks.items():
        stack: list[tuple] = []
        for s in sorted(slices, key=lambda s: (s[0], -s[1])):
            while stack and stack[-1][1] <= s[0]:
                stack.pop()
            if stack and s[1] > stack[-1][1]:
                bad.append((key, stack[-1], s))
            stack.append(s)
    return bad


def _raw_overlaps(trace: dict) -> int:
    """Overlaps there would be if every lane of a group were one track (the old trace)."""
    names = {e["tid"]: e["args"]["name"].split(" +")[0] for e in trace["traceEvents"]
             if e.get("name") == "thread_name"}
    merged = {"traceEvents": [dict(e, tid=names[e["tid"]]) for e in trace["traceEvents"]
                              if e.get("ph") == "X"]}
    return len(partial_overlaps(merged))


def test_checker_catches_a_partial_overlap():
    tr = {"traceEvents": [{"ph": "X", "pid": 0, "tid": 0, "ts": 0, "dur": 4, "name": "a"},
                          {"ph": "X", "pid": 0, "tid": 0, "ts": 1, "dur": 2, "name": "in"},
                          {"ph": "X", "pid": 0, "tid": 0, "ts": 2, "dur": 4, "name": "b"}]}
    assert [b[2] for _, _, b in partial_overlaps(tr)] == ["b"]       # "in" nests inside "a"
    tr["traceEvents"].pop()
    assert partial_overlaps(tr) == []


def test_lanes_are_overlap_free_and_few():
    sl = [{"ts": t, "dur": d} for t, d in [(0, 4), (1, 4), (2, 4), (4, 1), (5, 4), (9, 1)]]
    lanes = _lanes(sl)
    assert lanes == [0, 1, 2, 0, 0, 0]
    for lane in set(lanes):
        spans = sorted((s["ts"], s["ts"] + s["dur"]) for s, k in zip(sl, lanes) if k == lane)
        assert all(a[1] <= b[0] for a, b in zip(spans, spans[1:]))
    assert max(lanes) + 1 == 3          # at t=2 three slices are open: three lanes are needed


def _profile_trace(kernel) -> dict:
    from asmgen.cli.profile import profile
    out = profile(kernel, iters=2, keep_result=True)
    return json.loads(json.dumps(chrome_trace(out["_result"])))


@pytest.fixture(scope="module")
def gemm_trace():
    from asmgen import api
    return _profile_trace(api.gemm(128, 128, 64, dtype="bf16", tile=(64, 64, 32), waves=(2, 2),
                                   schedule="pgr2"))


@pytest.fixture(scope="module")
def attention_trace():
    from asmgen import api
    return _profile_trace(api.attention(batch=1, heads=2, seqlen_q=128, seqlen_k=256,
                                        head_dim=64, dtype="bf16"))


@pytest.mark.parametrize("name", ["gemm_trace", "attention_trace"])
def test_every_track_nests(name, request):
    trace = request.getfixturevalue(name)
    assert partial_overlaps(trace) == []
    assert _raw_overlaps(trace) > 0            # the slices did overlap: lanes were needed
    tracks = {e["args"]["name"] for e in trace["traceEvents"] if e.get("name") == "thread_name"}
    assert any(t.endswith("stalls") for t in tracks) and any("MFMA pipe" in t for t in tracks)
    n_x = sum(e.get("ph") == "X" for e in trace["traceEvents"])
    assert n_x > 100                           # a real trace, nothing dropped
