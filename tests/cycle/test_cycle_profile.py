"""``asmgen profile`` end to end on a small generated GEMM (emulator trace -> cycle model), and the
model's bookkeeping invariant: per wave, issue slots + stalls = time to its last issue."""
from __future__ import annotations

import json

import pytest

from asmgen.cli import main
from isa.cycle import simulate, streams_from_asm

MFMA = "v_mfma_f32_32x32x8_bf16 a[0:15], v[0:1], v[2:3], a[0:15]"


@pytest.fixture(scope="module")
def gemm_dir(tmp_path_factory):
    from asmgen import api
    k = api.gemm(128, 128, 256, dtype="bf16", arch="gfx942", tile=(64, 64, 32), waves=(2, 2))
    d = tmp_path_factory.mktemp("prof")
    return k.save(d), k


def _accounted(res) -> None:
    for w in res.waves:
        last = w.issues[-1]
        slots = 4 * len(w.issues)
        assert last.t + 4 - w.simd == pytest.approx(slots + sum(w.stalls.values())), w.wave


def test_profile_json_trace_svg(gemm_dir, tmp_path, capsys):
    path, _ = gemm_dir
    trace, svg = tmp_path / "t.json", tmp_path / "t.svg"
    rc = main(["profile", str(path), "--json", "--trace", str(trace), "--svg", str(svg)])
    assert rc == 0
    out = json.loads(capsys.readouterr().out)
    for key in ("cycles", "cycles_per_iter", "mfma_busy", "tflops", "stalls"):
        assert key in out
    # per wave 32x32 of C: 1 accumulator x 4 k-steps of 32x32x8 = 4 MFMAs x 32 clk per iteration
    assert out["cycles_per_iter"] >= 4 * 32
    assert 0 < out["mfma_busy"] <= 1
    assert 0 < out["tflops"] < out["perf"]["peak_tflops"]
    assert out["emulated"]["waves"] == 4 and out["emulated"]["iterations"] >= 2
    assert out["problem"]["n_wg"] == 4 and out["perf"]["rounds"] == 1
    # the bound breakdown: each resource's share, the largest named; MFMA's share is the busy
    b = out["bound"]
    assert b["bound"] == max(b["shares"], key=b["shares"].get)
    assert b["shares"]["mfma"] == pytest.approx(max(out["mfma_busy_per_simd"].values()), abs=0.02)
    assert set(b["memory_floors_clk"]) == {"l2", "mall", "hbm"} and 0 <= b["l2_hit"] <= 1
    assert out["uncertainty"]["worst"] >= out["uncertainty"]["median"] > 0
    assert json.loads(trace.read_text())["traceEvents"]
    assert svg.read_text().startswith("<svg")


def test_profile_text_and_model_bookkeeping(gemm_dir, capsys):
    from asmgen.cli.profile import profile
    path, k = gemm_dir
    assert main(["profile", str(path), "--iters", "3"]) == 0
    assert "modeled TFLOP/s" in capsys.readouterr().out
    assert main(["profile", str(path), "--loop", "1-2"]) == 2
    assert "LO:HI" in capsys.readouterr().err
    out = profile(k, iters=4, keep_result=True)
    _accounted(out["_result"])
    # more co-resident workgroups cannot make one round faster per workgroup than alone
    one = profile(k, iters=4, wgs_per_cu=1)
    assert out["cycles_per_round"] >= one["cycles_per_round"]
    lo, hi = one["emulated"]["loop"]
    assert profile(k, iters=4, wgs_per_cu=1, loop=(lo, hi))["cycles_per_iter"] == one["cycles_per_iter"]


def test_profile_bad_input(tmp_path, capsys):
    assert main(["profile", str(tmp_path / "missing.json")]) == 2
    assert "does not exist" in capsys.readouterr().err
    bad = tmp_path / "k.json"
    bad.write_text(json.dumps({"kernel": "k", "arch": "gfx942", "grid": [1, 1, 1],
                               "block": [64, 1, 1], "args": [], "config": {"kind": "conv2d"}}))
    (tmp_path / "k.hsaco").write_bytes(b"")
    assert main(["profile", str(bad)]) == 2
    err = capsys.readouterr().err
    assert "'conv2d'" in err and "'gemm'" in err and "'attention'" in err


def test_stall_bookkeeping_on_a_mixed_stream():
    lines = ["buffer_load_dwordx4 v[4:7], v0, s[0:3], 0 offen", MFMA, "s_nop 2",
             "ds_read_b128 v[8:11], v1", "s_waitcnt lgkmcnt(0)", MFMA,
             "v_accvgpr_read_b32 v20, a0", "s_waitcnt vmcnt(0)", "s_barrier",
             "v_add_u32 v21, v4, v8", "s_endpgm"]
    text = "\n".join(lines)
    res = simulate("gfx942", streams_from_asm([text, text, text, text, text], simds=[0, 0, 1, 2, 3]))
    _accounted(res)
    assert res.stall_totals()["barrier"] > 0
