"""How ``asmgen profile`` extrapolates a GEMM over K and reports clocks: with several co-resident
workgroups the cycles per K iteration are the CU's (measured from a second run with two more K
tiles), never less than a wave's own; the TFLOP/s at the device's sustained clock scale the
same cycles by the clock ratio."""
import pytest

from asmgen.api import gemm
from asmgen.cli_profile import profile
from isa.cycle import params_for


@pytest.fixture(scope="module")
def small_tile():   # 64x64x32 on gfx950: several workgroups share a CU
    return gemm(2048, 2048, 2048, dtype="bf16", arch="gfx950", layout="NT", tile=(64, 64, 32),
                schedule="pgr2")


def test_co_resident_workgroups_use_the_cu_trip_time(small_tile):
    out = profile(small_tile, iters=4)
    assert out["wgs_per_cu"] > 1
    assert out["extrapolation"] == "cycles_per_iter_cu"
    assert out["cycles_per_iter"] >= out["cycles_per_iter_wave"] > 0
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
    assert out["sustained_clock_mhz"] == p.sustained_clock_mhz < p.clock_mhz
    assert out["tflops_sustained"] == pytest.approx(out["tflops"] * p.sustained_clock_mhz
                                                    / p.clock_mhz)
    assert "1.54 GHz" in p.source("sustained_clock_mhz")
    for dev in ("MI300X", "MI325X", "MI355X"):
        arch = "gfx950" if dev == "MI355X" else "gfx942"
        q = params_for(arch, dev)
        assert 1000 <= q.sustained_clock_mhz < q.clock_mhz
