"""Reports of the cycle model: loop detection, cycles per iteration, MFMA busy, TFLOP/s with
wave quantisation, trace records -> streams, Perfetto JSON and SVG output."""
from __future__ import annotations

import json
import xml.etree.ElementTree as ET

import pytest

from isa.asm_parse import parse_line
from isa.cycle import CycleModelError, WaveStream, params_for, simulate, streams_from_trace
from isa.cycle.report import chrome_trace, find_loop, mfma_busy, problem_tflops, summarize, svg_timeline

MFMA = "v_mfma_f32_32x32x8_bf16 a[0:15], v[0:1], v[2:3], a[0:15]"
LOOP = ["s_mov_b32 s4, 0",                      # pc 0: prologue
        MFMA,                                   # pc 1: loop head
        "s_add_u32 s4, s4, 1",                  # pc 2
        "s_cmp_lt_u32 s4, 5",                   # pc 3
        "s_cbranch_scc1 -4",                    # pc 4: back to pc 1
        "s_endpgm"]                             # pc 5


def loop_stream(wave: int, iters: int, simd: int | None = None) -> WaveStream:
    pcs = [0] + [1, 2, 3, 4] * iters + [5]
    return WaveStream(wave, [parse_line(LOOP[pc]) for pc in pcs], pcs=pcs, simd=simd)


def test_loop_found_and_cycles_per_iter():
    res = simulate("gfx942", [loop_stream(0, 6)])
    assert find_loop(res) == (1, 4)
    s = summarize(res)
    # each iteration: MFMA at 0, the scalar ops at 4 and 8, the taken branch at 12 keeps the wave
    # from issuing for 32 clk (instruction-buffer refill): the next MFMA issues at 44
    assert s["cycles_per_iter"] == 44
    assert s["iterations"] == 6
    assert s["mfma_busy"] == pytest.approx(32 / 44)
    assert s["loop"] == [1, 4]
    assert set(s["stalls"]) == {"waitcnt_vmcnt", "waitcnt_lgkmcnt", "barrier", "dependency",
                                "issue", "nop", "branch"}
    assert s["stalls"]["branch"] == 5 * (32 - 4)     # the last trip falls through: not taken


def test_explicit_loop_and_label():
    res = simulate("gfx942", [loop_stream(0, 4)])
    assert summarize(res, loop=(1, 4))["cycles_per_iter"] == 44
    assert summarize(res, loop="body", labels={"body": 1})["cycles_per_iter"] == 44
    with pytest.raises(CycleModelError, match="nope"):
        summarize(res, loop="nope", labels={"body": 1})


def test_mfma_busy_half():
    # one MFMA then 8 slots of nops: the pipe is busy 32 of 64 clk
    ins = [parse_line(MFMA), parse_line("s_nop 7"), parse_line("s_endpgm")]
    res = simulate("gfx942", [WaveStream(0, ins)])
    assert mfma_busy(res, (0, 64))[0] == pytest.approx(0.5)


def test_problem_tflops_quantises_over_cus():
    p = params_for("gfx942")
    full = problem_tflops(p, flops=2.0e12, n_wg=304, cycles_per_round=2.1e6)
    assert full["rounds"] == 1 and full["seconds"] == pytest.approx(1e-3)
    assert full["tflops"] == pytest.approx(2000.0)
    spill = problem_tflops(p, flops=2.0e12, n_wg=305, cycles_per_round=2.1e6)
    assert spill["rounds"] == 2 and spill["tflops"] == pytest.approx(1000.0)
    two = problem_tflops(p, flops=2.0e12, n_wg=305, cycles_per_round=2.1e6, wgs_per_cu=2)
    assert two["rounds"] == 1
    with pytest.raises(CycleModelError, match="n_wg=0"):
        problem_tflops(p, 1.0, 0, 10.0)


def test_streams_from_trace_groups_by_wave():
    recs = [{"wg": [0, 0, 0], "wave": w, "simd": w % 4, "pc": pc, "step": 0, "instr": LOOP[pc],
             "vmcnt": 0, "lgkmcnt": 0} for pc in (0, 1, 2) for w in (0, 1)]
    recs.append({"wg": [1, 0, 0], "wave": 0, "simd": 0, "pc": 5, "instr": "s_endpgm"})
    st = streams_from_trace(recs)
    assert [(s.wg, s.wave, len(s.instrs)) for s in st] == [(0, 0, 3), (0, 1, 3), (1, 0, 1)]
    assert st[0].pcs == [0, 1, 2] and st[1].simd == 1
    only = streams_from_trace(recs, wgs=[[1, 0, 0]])
    assert len(only) == 1 and str(only[0].instrs[0]) == "s_endpgm"


def test_chrome_trace_and_svg_are_well_formed():
    res = simulate("gfx942", [loop_stream(0, 3), loop_stream(1, 3)])
    tr = json.loads(json.dumps(chrome_trace(res)))
    names = {e["args"]["name"] for e in tr["traceEvents"] if e.get("name") == "thread_name"}
    assert "SIMD0 MFMA pipe" in names and "wg0 wave1 (SIMD1)" in names
    mfma_events = [e for e in tr["traceEvents"] if e.get("cat") == "pipe"]
    assert len(mfma_events) == 6 and all(e["dur"] == 32 for e in mfma_events)
    svg = svg_timeline(res)
    root = ET.fromstring(svg)
    assert root.tag.endswith("svg")
    assert svg.count('fill="#d62728"') >= 6          # MFMA bars (plus the legend)
    with pytest.raises(CycleModelError, match="empty SVG window"):
        svg_timeline(res, window=(10, 10))
