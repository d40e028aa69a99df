"""How ``asmgen profile`` extrapolates a GEMM over K and reports clocks: with several co-resident
workgroups the cycles per K iteration are the CU's (measured from a second run with two more K
tiles), never less than a wave's own; the TFLOP/s at the device's sustained clock scale the
same cycles by the clock ratio."""
import pytest

from asmgen.api import gemm
from asmgen.cli.profile import profile
from isa.cycle import params_for


@pytest.fixture(scope="module")
def small_tile():   # 64x64x32 on gfx950: several workgroups share a CU
    return gemm(2048, 2048, 2048, dtype="bf16", arch="gfx950", layout="NT", tile=(64, 64, 32),
                schedule="pgr2")


def test_co_resident_workgroups_use_the_cu_trip_time(small_tile):
    out = profile(small_tile, iters=4)
    assert out["wgs_per_cu"] > 1
    # the CU's growth per trip was measured; the larger of it and a wave's trip time is used
    if out["extrapolation"] == "cycles_per_iter_cu":
        assert out["cycles_per_iter"] > out["cycles_per_iter_wave"] > 0
    else:
        assert out["extrapolation"] == "cycles_per_iter_wave"
        assert out["cycles_per_iter"] == out["cycles_per_iter_wave"] > 0
    # the whole-problem time is built from that trip time: round = emulated + extra trips
    extra = out["emulated"]["k_iters"], 2048 // 32
    per_round = out["emulated"]["cycles"] + (extra[1] - extra[0]) * out["cycles_per_iter"]
    assert out["cycles_per_round"] == pytest.approx(per_round)


def test_one_workgroup_per_cu_uses_the_wave_trip_time():
    k = gemm(2048, 2048, 2048, dtype="bf16", arch="gfx942", layout="NT", tile=(256, 256, 32),
             direct_to_lds=True, lds_swizzle=True, k_multiple=32, schedule="pgr2", prefetch=1)
    out = profile(k, iters=4)
    assert out["wgs_per_cu"] == 1
    assert out["extrapolation"] == "cycles_per_iter_wave"
    assert out["cycles_per_iter"] == out["cycles_per_iter_wave"]


def test_sustained_clock_scales_tflops(small_tile):
    out = profile(small_tile, iters=4)
    p = params_for("gfx950", out["device"])
    # the power-limited clock of this load (isa.cycle.power): a light 64x64 tile keeps the MFMAs
    # busy less than the reference run, so it runs above the reference clock, at most at the peak
    sus = out["perf"]["sustained"]
    assert out["sustained_clock_mhz"] == sus["clock_mhz"]
    assert p.sustained_clock_mhz < out["sustained_clock_mhz"] <= p.clock_mhz
    assert max(sus["round_activity"]) < p.power_ref_activity
    # same cycles, another clock: TFLOP/s scale with the effective clock
    assert out["tflops_sustained"] == pytest.approx(out["tflops"] * sus["clock_mhz"] / p.clock_mhz)
    assert p.sustained_clock_mhz < p.clock_mhz
    assert "1.54 GHz" in p.source("sustained_clock_mhz")
    for dev in ("MI300X", "MI325X", "MI355X"):
        arch = "gfx950" if dev == "MI355X" else "gfx942"
        q = params_for(arch, dev)
        assert 1000 <= q.sustained_clock_mhz < q.clock_mhz


def test_cu_trip_cycles_takes_the_slower_measure(monkeypatch):
    """Workgroups that run one after another: the second run's growth per trip (the CU's) is
    larger than a wave's own trip time and wins; one workgroup per CU never runs it."""
    import asmgen.profiling.common as pc

    class Res:
        cycles = 10_000
    monkeypatch.setattr(pc, "emulate_streams", lambda *a, **k: ["s"])
    monkeypatch.setattr(pc, "model_cu", lambda *a, **k: (4, Res(), {}))
    cpi, how = pc.cu_trip_cycles({}, b"", None, {}, copies=4, hbm_fraction=0.0, loop=None,
                                 base_cycles=6_000, cpi_wave=500.0, seed=0)
    assert (cpi, how) == (2000.0, "cycles_per_iter_cu")
    cpi, how = pc.cu_trip_cycles({}, b"", None, {}, copies=4, hbm_fraction=0.0, loop=None,
                                 base_cycles=9_500, cpi_wave=500.0, seed=0)
    assert (cpi, how) == (500.0, "cycles_per_iter_wave")
    monkeypatch.setattr(pc, "emulate_streams", lambda *a, **k: pytest.fail("second run"))
    assert pc.cu_trip_cycles({}, b"", None, {}, 1, 0.0, None, 6_000, 500.0, 0) == \
        (500.0, "cycles_per_iter_wave")


def test_attention_profile_reports_its_extrapolation():
    from asmgen.api import attention
    k = attention(batch=1, heads=2, seqlen_q=256, seqlen_k=512, head_dim=64, dtype="bf16",
                  arch="gfx950")
    out = profile(k, iters=4)
    assert out["extrapolation"] in ("cycles_per_iter_wave", "cycles_per_iter_cu")
    assert out["cycles_per_iter"] >= out["cycles_per_iter_wave"] > 0
