"""``asmgen profile`` on attention contracts (``asmgen attention ... -o DIR``): JSON keys with sane
values on both arches, causal halving of the work, a Chrome trace, and the per-Q-block trip counts
and dealing of workgroups that the whole-problem figure rests on."""
from __future__ import annotations

import json

import numpy as np
import pytest

from asmgen.cli import main
from asmgen.kinds.attention.profile import makespan, trips_per_qblock


def _contract(tmp_path_factory, arch: str, causal: bool, seqlen_k_multiple: int = 1):
    from asmgen.api import attention
    k = attention(batch=2, heads=4, seqlen_q=512, seqlen_k=512, head_dim=64, dtype="bf16",
                  causal=causal, arch=arch, seqlen_k_multiple=seqlen_k_multiple)
    return k.save(tmp_path_factory.mktemp(f"attn_{arch}_{causal}_{seqlen_k_multiple}"))


@pytest.mark.parametrize("arch", ["gfx942", "gfx950"])
def test_profile_attention_json_and_trace(arch, tmp_path_factory, tmp_path, capsys):
    runs = {}
    for causal in (False, True):
        path = _contract(tmp_path_factory, arch, causal)
        trace = tmp_path / f"t{causal}.json"
        assert main(["profile", str(path), "--json", "--iters", "4", "--trace", str(trace)]) == 0
        out = json.loads(capsys.readouterr().out)
        for key in ("cycles", "cycles_per_iter", "mfma_busy", "tflops", "stalls"):
            assert key in out, key
        assert out["kind"] == "attention"
        assert 0 < out["mfma_busy"] <= 1
        # per KV block one wave issues (D=64) 2 x 8 QK + 4 x 2 PV 32x32x8 MFMAs (x16: half as
        # many at twice the passes): at least 24 x 32 clk of MFMA on gfx942's x8 (16 passes)
        assert out["cycles_per_iter"] > (24 * 32 if arch == "gfx942" else 0)
        assert 0 < out["tflops"] < out["perf"]["peak_tflops"]
        for cat in ("waitcnt_vmcnt", "waitcnt_lgkmcnt", "dependency", "issue"):
            assert cat in out["stalls"]
        # causal: the loop measured is the off-diagonal one (kvloop, the unmasked body); the
        # emulated Q-block's diagonal block runs in the diagonal loop after it
        assert out["emulated"]["kv_iters"] == 4
        assert out["emulated"]["iterations"] == 4 - causal
        assert out["bound"]["bound"] == max(out["bound"]["shares"], key=out["bound"]["shares"].get)
        assert out["problem"]["n_wg"] == 16 * 4 * 2
        events = json.loads(trace.read_text())["traceEvents"]
        assert events and all("ph" in e for e in events[:50])
        runs[causal] = out
    assert runs[True]["problem"]["flops"] == runs[False]["problem"]["flops"] / 2
    # 128 workgroups fill one round of the CUs: the longest Q-block (all 16 KV blocks) sets the
    # time either way, so causal (half the FLOPs) gains nothing over the non-causal kernel whose
    # loop body its interior blocks run (no key mask: seqlen_k_multiple 32) and masks only its
    # diagonal block; the default non-causal kernel (no length promise) runs that body on every
    # whole key block too, its mask only on a last partial one (kinds.attention.kvloop)
    assert runs[False]["perf"]["rounds"] == runs[True]["perf"]["rounds"] == 1
    path = _contract(tmp_path_factory, arch, False, 32)
    assert main(["profile", str(path), "--json", "--iters", "4"]) == 0
    nomask = json.loads(capsys.readouterr().out)
    # 128 workgroups on >= 256 CUs: one per CU, whatever the occupancy would allow (the profile
    # once modeled the occupancy's 12 or 16 co-resident copies; the causal kernel, with more
    # VGPRs for its masked body, then got 12 where the no-mask one got 16 and modeled 11 % shorter)
    assert runs[True]["wgs_per_cu"] == runs[False]["wgs_per_cu"] == nomask["wgs_per_cu"] == 1
    # the causal longest Q-block runs the no-mask body on 15 blocks plus one masked diagonal
    # block; 0.95, not 1: the two loops are scheduled apart (measured 1.03 on both arches)
    assert runs[True]["cycles"] >= 0.95 * nomask["cycles"]
    assert runs[False]["cycles"] <= 1.02 * nomask["cycles"]     # whole blocks: no mask runs
    assert runs[True]["tflops"] < 0.6 * nomask["tflops"]
    assert runs[True]["problem"]["kv_iters_mean"] == pytest.approx((16 + 1) / 2)


def test_profile_attention_text(tmp_path_factory, capsys):
    path = _contract(tmp_path_factory, "gfx942", False)
    assert main(["profile", str(path), "--iters", "3", "--wgs-per-cu", "2"]) == 0
    text = capsys.readouterr().out
    assert "cycles per KV block" in text and "modeled TFLOP/s" in text


def test_trip_counts_and_dealing():
    assert trips_per_qblock(128, 128, False).tolist() == [4, 4, 4, 4]
    assert trips_per_qblock(128, 128, True).tolist() == [1, 2, 3, 4]
    # bottom-right aligned: 32 queries against 96 keys all see the first 65..96 keys
    assert trips_per_qblock(32, 96, True).tolist() == [3]
    # more queries than keys: the first Q-block sees no key, the loop still runs once
    assert trips_per_qblock(96, 32, True).tolist() == [1, 1, 1]
    # equal lengths: whole rounds (wave quantisation)
    assert makespan(np.array([10.0, 10.0]), 3, 4) == 20.0
    # unequal: 1, 2, 3, 4 dealt to 2 slots in order -> slot a: 1+3, slot b: 2+4
    assert makespan(np.array([1.0, 2.0, 3.0, 4.0]), 1, 2) == 6.0


def test_causal_extrapolation_does_not_depend_on_iters(tmp_path_factory):
    """Causal, 4 waves: the emulated Q-block ends on diagonal blocks (masked, some wholly above
    some waves' rows); the profile extrapolates by the unmasked blocks a second run adds, and
    the whole-problem figure does not move with ``--iters`` (it moved 8 % on the B16 H16 S8192
    D128 kernel between 8 and 16 when the window mixed the masked body in). The steady-state
    window is the off-diagonal loop's (``kvloop``: the unmasked body alone), so the waves' own
    rate agrees with that growth (measured 1523 / 1520 clk)."""
    from asmgen.api import attention
    from asmgen.cli.profile import profile
    k = attention(batch=2, heads=2, seqlen_q=1024, seqlen_k=1024, head_dim=64, dtype="bf16",
                  causal=True, waves=4, kv_buffers=2, schedule="attn_prio_interleave",
                  seqlen_k_multiple=32, cache=False)
    a, b = profile(k, iters=8), profile(k, iters=12)
    assert a["extrapolation"] == b["extrapolation"] == "unmasked_growth"
    assert a["cycles_per_iter"] == pytest.approx(a["cycles_per_iter_wave"], rel=0.02)
    assert a["emulated"]["iterations"] == 8 - 1 and b["emulated"]["iterations"] == 12 - 1
    assert b["cycles"] == pytest.approx(a["cycles"], rel=0.01)


def test_unaligned_keys_profile_their_masked_block(tmp_path_factory):
    """Non-causal without a length promise: the masked arm runs on a last partial key block only
    (kvloop); the emulated problem's keys end as the contract's do (8 keys past whole blocks:
    the masked arm runs in the emulated round), and its growth adds whole blocks, so the figure
    is the aligned one plus that one masked trip, not an unmasked guess."""
    from asmgen.api import attention
    from asmgen.cli.profile import profile
    from asmgen.kinds.attention.profile import attention_problem
    out = {}
    for sk in (512, 520):
        k = attention(batch=1, heads=2, seqlen_q=256, seqlen_k=sk, head_dim=64, dtype="bf16",
                      cache=False)
        assert attention_problem(k.meta, 8)["small"]["seqlen_k"] == 8 * 32 - (sk == 520) * 24
        out[sk] = profile(k, iters=8)
    a, b = out[512], out[520]
    assert a["emulated"]["seqlen_k"] == 256 and b["emulated"]["seqlen_k"] == 232
    assert b["cycles"] > a["cycles"]        # one trip more (the partial block)


def test_profile_pingpong_reports_both_rescale_figures(tmp_path, capsys):
    """The ping-pong loop's O-rescale branch depends on the data: the figure rescales every
    block (``rescale_skip.figure`` "always", the same cycles as the top-level figure), the
    stable one (no row max changes after block 0) skips it and models fewer clk per block; the
    text report names both. A kernel without the branch (4 waves) has no such entry."""
    from asmgen.api import attention
    k = attention(batch=1, heads=16, seqlen_q=1024, seqlen_k=1024, head_dim=128, dtype="bf16",
                  arch="gfx950", schedule="attn_pingpong", waves=8, kv_buffers=3,
                  seqlen_k_multiple=32)
    path = k.save(tmp_path / "pp")
    assert main(["profile", str(path), "--json", "--iters", "4"]) == 0
    out = json.loads(capsys.readouterr().out)
    rs = out["rescale_skip"]
    assert rs["figure"] == "always" and rs["always"]["tflops"] == out["tflops"]
    assert rs["always"]["cycles_per_iter"] == out["cycles_per_iter"]
    assert rs["stable"]["cycles_per_iter"] < rs["always"]["cycles_per_iter"]
    assert rs["stable"]["tflops"] > rs["always"]["tflops"]
    from asmgen.profiling.common import format_text
    assert "O-rescale skip" in format_text(out)
    k4 = attention(batch=1, heads=16, seqlen_q=1024, seqlen_k=1024, head_dim=128, dtype="bf16",
                   arch="gfx950", schedule="attn_prio_interleave", waves=4, kv_buffers=2,
                   seqlen_k_multiple=32)
    assert main(["profile", str(k4.save(tmp_path / "w4")), "--json", "--iters", "4"]) == 0
    assert "rescale_skip" not in json.loads(capsys.readouterr().out)


def test_causal_rate_is_the_unmasked_body_rate():
    """The causal loop's unmasked body is the non-causal kernel's body (``kvloop``), so the rate
    the causal profile extrapolates by must be the non-causal kernel's steady-state rate (its
    per-trip compare and branch aside). gfx950 B16 H16 S8192 D128 prio_interleave w4b2, two
    co-resident workgroups: a growth window of 2 key blocks read 1696 clk per block against the
    non-causal 1739 (2.5 % low); ``CAUSAL_GROWTH_BLOCKS`` (6) reads 1733."""
    from asmgen.api import attention
    from asmgen.cli.profile import profile
    kw = {"batch": 16, "heads": 16, "seqlen_q": 8192, "seqlen_k": 8192, "head_dim": 128,
          "dtype": "bf16", "arch": "gfx950", "waves": 4, "kv_buffers": 2,
          "schedule": "attn_prio_interleave", "seqlen_k_multiple": 32, "cache": False}
    c = profile(attention(causal=True, **kw))
    n = profile(attention(causal=False, **kw))
    assert c["wgs_per_cu"] == n["wgs_per_cu"] == 2
    assert c["extrapolation"] == "unmasked_growth"
    assert c["cycles_per_iter"] == pytest.approx(n["cycles_per_iter"], rel=0.01)
