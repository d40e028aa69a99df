"""``asmgen.profiling.foreign`` on code objects asmgen did not generate: an OpenCL MFMA GEMM and an
OpenCL kernel with a dynamic-LDS (``__local``) argument, compiled here with clang-22. The adapter
must read the arguments from the code object's metadata, run the kernel on the emulator with a
result NumPy agrees with, and give modeled numbers that are consistent with each other and with
the kernel's shape. Triton is not needed (benchmarks/triton_calibration.py uses it)."""
from __future__ import annotations

import math
import shutil
import subprocess

import numpy as np
import pytest

from asmgen.errors import ConfigError, KernargError
from asmgen.profiling.foreign import ForeignKernel, contract, foreign_args, launch, profile_foreign
from isa.cycle import params_for

CLANG, LLD = shutil.which("clang-22"), shutil.which("ld.lld-22")
pytestmark = pytest.mark.skipif(not (CLANG and LLD), reason="clang-22 / ld.lld-22 not installed")

# Each 256-work-item workgroup computes a 32x32 tile of C = A @ B (f16 in, f32 out) with four
# waves of one 16x16 tile each; per K step of 16 a lane loads its MFMA fragments straight from
# global memory (cdna-facts §2.2 v_mfma_f32_16x16x16_f16: lane l holds row/col l%16 and
# k = 4*(l/16)..+3; D register r of lane l is row 4*(l/16)+r, column l%16).
SOURCE = r"""
#pragma OPENCL EXTENSION cl_khr_fp16 : enable
typedef half half4_t __attribute__((ext_vector_type(4)));
typedef float float4_t __attribute__((ext_vector_type(4)));

__kernel void mfma_gemm(__global const half* A, __global const half* B, __global float* C,
                        int M, int N, int K) {
  uint t = __builtin_amdgcn_workitem_id_x();
  uint w = t / 64, l = t % 64;
  uint row0 = __builtin_amdgcn_workgroup_id_y() * 32 + (w / 2) * 16;
  uint col0 = __builtin_amdgcn_workgroup_id_x() * 32 + (w % 2) * 16;
  uint kq = 4 * (l / 16);
  float4_t acc = {0.0f, 0.0f, 0.0f, 0.0f};
  for (int k0 = 0; k0 < K; k0 += 16) {
    half4_t a, b;
    for (int j = 0; j < 4; ++j) {
      a[j] = A[(row0 + l % 16) * K + k0 + kq + j];
      b[j] = B[(k0 + kq + j) * N + col0 + l % 16];
    }
    acc = __builtin_amdgcn_mfma_f32_16x16x16f16(a, b, acc, 0, 0, 0);
  }
  for (int r = 0; r < 4; ++r) C[(row0 + kq + r) * N + col0 + l % 16] = acc[r];
}

__kernel void reverse_lds(__global const uint* x, __global uint* out, __local uint* buf) {
  uint t = __builtin_amdgcn_workitem_id_x();
  buf[t] = x[t] + 1u;
  __builtin_amdgcn_fence(__ATOMIC_RELEASE, "workgroup");
  __builtin_amdgcn_s_barrier();
  __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "workgroup");
  out[t] = buf[63 - t];
}
"""
GEMM_NAMES = ("A", "B", "C", "M", "N", "K")


@pytest.fixture(scope="module")
def hsaco(tmp_path_factory):
    d = tmp_path_factory.mktemp("foreign")
    (d / "k.cl").write_text(SOURCE)
    subprocess.run([CLANG, "-target", "amdgcn-amd-amdhsa", "-mcpu=gfx942", "-nogpulib", "-O3",
                    "-Wno-everything", "-x", "cl", "-c", "-o", str(d / "k.o"), str(d / "k.cl")],
                   check=True, capture_output=True)
    subprocess.run([LLD, "-shared", str(d / "k.o"), "-o", str(d / "k.hsaco")], check=True,
                   capture_output=True)
    return (d / "k.hsaco").read_bytes()


@pytest.fixture(scope="module")
def gemm(hsaco):
    return ForeignKernel(hsaco, "mfma_gemm", (256, 1, 1), names=GEMM_NAMES)


def _problem(m, n, k, seed=0):
    rng = np.random.default_rng(seed)
    a = rng.uniform(-1, 1, (m, k)).astype(np.float16)
    b = rng.uniform(-1, 1, (k, n)).astype(np.float16)
    return {"A": a, "B": b, "C": np.zeros((m, n), np.float32), "M": m, "N": n, "K": k}


def test_args_and_contract_come_from_the_code_object(gemm):
    specs = foreign_args(gemm)
    assert [(a.name, a.kind, a.dtype) for a in specs] == [
        ("A", "buffer", "u32"), ("B", "buffer", "u32"), ("C", "buffer", "u32"),
        ("M", "scalar", "i32"), ("N", "scalar", "i32"), ("K", "scalar", "i32")]
    meta = contract(gemm)
    assert meta["arch"] == "gfx942" and meta["block"] == [256, 1, 1]
    assert meta["lds_bytes"] == 0
    vgprs = meta["resources"]["vgpr"]
    assert 8 <= vgprs <= 512 and vgprs % 8 == 0
    assert meta["resources"]["waves_per_simd"] == min(8, 512 // vgprs)


def test_gemm_on_the_emulator_matches_numpy(gemm):
    m, n, k = 64, 96, 48
    vals = _problem(m, n, k, seed=3)
    launch(gemm, (n // 32, m // 32, 1), vals, seed=3)
    a, b = vals["A"].astype(np.float64), vals["B"].astype(np.float64)
    ref = a @ b
    # fp32 accumulation in groups (cdna-facts §2.3): (K + 2) fp32 ulps of sum |a*b|
    tol = (k + 2) * np.finfo(np.float32).eps * (np.abs(a) @ np.abs(b))
    assert np.all(np.abs(vals["C"] - ref) <= tol)
    assert np.abs(vals["C"]).min() > 0   # every element was written


def test_profile_numbers_are_consistent(gemm):
    size, iters = 4096, 6
    n_wg = (size // 32) ** 2
    out = profile_foreign(gemm, lambda t: _problem(32, 32, 16 * t), flops=2.0 * size ** 3,
                          n_wg=n_wg, loop_iters=size // 16, emulated_iters=iters)
    p = params_for("gfx942", "MI300X")
    cpi, cpi_cu, busy = out["cycles_per_iter"], out["cycles_per_iter_cu"], out["mfma_busy"]
    assert out["device"] == "MI300X" and out["emulated"]["waves"] == 4
    assert out["emulated"]["iterations"] >= iters - 1
    # each trip waits for its own global loads before its MFMA: at least one L2 round trip
    assert cpi > p.vmem_l2_latency
    # the CU's marginal cost per trip is at least one wave's own trip time
    assert cpi_cu >= cpi and out["extrapolation"] == "cycles_per_iter_cu"
    # each wave puts one 16-clk MFMA per trip on its SIMD's pipe: busy lies between that work
    # over the CU's per-trip cost and over one wave's trip time (busy is measured over the union
    # of the waves' steady windows, which takes in some of the staggered copies' ramps)
    waves_per_simd = out["wgs_per_cu"] * 4 // 4
    assert out["wgs_per_cu"] == contract(gemm)["resources"]["waves_per_simd"]
    assert waves_per_simd * 16 / cpi_cu * 0.75 <= busy <= waves_per_simd * 16 / cpi
    # extrapolation over K and wave quantisation over the CUs
    assert out["cycles_per_round"] == pytest.approx(
        out["emulated"]["cycles"] + (size // 16 - iters) * cpi_cu)
    rounds = math.ceil(n_wg / (304 * out["wgs_per_cu"]))
    assert out["perf"]["rounds"] == rounds
    seconds = rounds * out["cycles_per_round"] / 2100e6
    assert out["tflops"] == pytest.approx(2.0 * size ** 3 / seconds / 1e12)
    # the whole problem cannot beat the MFMA work the steady state sustains
    mfma_bound = waves_per_simd * 16 / cpi_cu * p.peak_tflops()
    assert 0 < out["tflops"] <= mfma_bound


def test_profile_scales_with_the_loop_trip_count(gemm):
    kw = {"flops": 1e9, "n_wg": 1, "emulated_iters": 4}
    short = profile_foreign(gemm, _problem(32, 32, 64), loop_iters=4, **kw)
    long = profile_foreign(gemm, _problem(32, 32, 64), loop_iters=104, **kw)
    assert short["cycles_per_iter_cu"] is None and long["extrapolation"] == "cycles_per_iter"
    assert short["cycles_per_round"] == short["emulated"]["cycles"]
    assert long["cycles_per_round"] - short["cycles_per_round"] == pytest.approx(
        100 * long["cycles_per_iter"])
    assert long["tflops"] < short["tflops"]
    # one workgroup per CU: the copies cannot stagger, the marginal cost is the wave's trip
    one = profile_foreign(gemm, lambda t: _problem(32, 32, 16 * t), loop_iters=104,
                          wgs_per_cu=1, **kw)
    assert one["cycles_per_iter_cu"] == pytest.approx(one["cycles_per_iter"], rel=0.05)


def test_dynamic_lds_kernel_runs_and_is_profiled(hsaco):
    fk = ForeignKernel(hsaco, "reverse_lds", (64, 1, 1), dynamic_lds=256)
    specs = foreign_args(fk)
    assert [(a.kind, a.dtype) for a in specs] == [("buffer", "u32"), ("buffer", "u32"),
                                                  ("scalar", "u32")]
    assert contract(fk)["lds_bytes"] == 256
    x = np.arange(64, dtype=np.uint32) * 5
    out = np.zeros(64, np.uint32)
    launch(fk, (1, 1, 1), {"arg0": x, "arg1": out, "arg2": 0})
    assert np.array_equal(out, (x + 1)[::-1])
    prof = profile_foreign(fk, {"arg0": x, "arg1": np.zeros(64, np.uint32), "arg2": 0},
                           flops=64.0, n_wg=1, loop_iters=1, emulated_iters=1)
    assert prof["cycles_per_iter"] is None and prof["mfma_busy"] == 0.0
    # 64 KiB of LDS per CU / 256 bytes would allow 256 workgroups: the 32 wave slots cap it
    assert prof["wgs_per_cu"] == 32
    assert prof["cycles_per_round"] == prof["emulated"]["cycles"] > 0


def test_bad_inputs_are_named(gemm, hsaco):
    with pytest.raises(ConfigError, match="nope"):
        contract(ForeignKernel(hsaco, "nope", (64,)))
    with pytest.raises(KernargError, match="6 explicit arguments, 2 names"):
        foreign_args(ForeignKernel(hsaco, "mfma_gemm", (256,), names=("A", "B")))
    with pytest.raises(KernargError, match=r"no value for arguments \['K'\]"):
        vals = _problem(32, 32, 16)
        del vals["K"]
        launch(gemm, (1, 1, 1), vals)
    with pytest.raises(KernargError, match="unknown arguments"):
        foreign_args(gemm, scalar_dtypes={"alpha": "f32"})
    with pytest.raises(KernargError, match="dtype f64 is 8 bytes"):
        foreign_args(gemm, scalar_dtypes={"K": "f64"})
    with pytest.raises(ConfigError, match="loop_iters 2 must be >= emulated_iters 4"):
        profile_foreign(gemm, _problem(32, 32, 64), flops=1.0, n_wg=1, loop_iters=2,
                        emulated_iters=4)
    with pytest.raises(ConfigError, match="block"):
        ForeignKernel(hsaco, "mfma_gemm", (2048, 1, 1))


def test_known_tile_grid_floors_the_trip_as_asmgen_gemms_are(gemm):
    """A foreign GEMM given its tile grid is charged the L2 / MALL / HBM floors asmgen's GEMM
    profile applies (``profiling.device.floored_round``), with the grid's load latency, and its
    sustained clock weighs its own MFMA (f16 here), not a bf16 default. The old foreign path
    applied no floor and priced every kernel's power as bf16's."""
    from isa.cycle.power import sustained
    from isa.cycle.problem import TileGrid, gemm_traffic, memory_floors, trip_bound
    size, iters = 4096, 6
    # the kernel's grid is (N/32, M/32): linear workgroup ids walk the tile columns fastest
    tiles = TileGrid(size, size, size, (32, 32, 16), in_bytes=2, order="n_fastest")
    kw = {"flops": 2.0 * size ** 3, "n_wg": tiles.n_wg, "loop_iters": tiles.trips,
          "emulated_iters": iters}
    out = profile_foreign(gemm, lambda t: _problem(32, 32, 16 * t), tiles=tiles,
                          keep_result=True, **kw)
    plain = profile_foreign(gemm, lambda t: _problem(32, 32, 16 * t), **kw)
    p = params_for("gfx942", "MI300X")
    floors = memory_floors(p, gemm_traffic(p, tiles, out["wgs_per_cu"]), p.clock_mhz)
    assert out["bound"]["memory_floors_clk"] == {k: round(v, 1) for k, v in floors.items()}
    trip, by = trip_bound(out["cycles_per_iter_cu"], floors)
    assert out["cycles_per_trip"] == pytest.approx(trip) and out["bound"]["trip_set_by"] == by
    assert out["cycles_per_round"] == pytest.approx(
        out["emulated"]["cycles"] + (tiles.trips - iters) * trip)
    # 64 f16 rows x 16 K per workgroup per trip, 8 x 38 workgroups on an XCD: 623 KB of L2
    # requests per trip, a floor of hundreds of clk (this kernel's staggered copies take longer)
    assert floors["l2"] == pytest.approx(8 * 38 * 64 * 16 * 2 / p.l2_achieved_bytes_per_clk_xcd)
    # the same function with a faster CU step: the floor sets the trip and the round
    from asmgen.profiling.device import floored_round
    res = out["_result"]
    t2, b2, r2 = floored_round(p, res, {"steady_window": out["_steady_window"]}, 1.0,
                               gemm_traffic(p, tiles, 8), 10, p.clock_mhz)
    assert (t2, b2["trip_set_by"]) == (pytest.approx(floors["l2"]), "l2")
    assert r2 == pytest.approx(res.cycles + 10 * floors["l2"])
    # the grid's L2 misses (MALL / HBM) lengthen the loads over the all-L2-hit default
    assert out["cycles_per_iter"] > plain["cycles_per_iter"]
    # the power model sees the f16 MFMA: activity = duty x power_weight_f16
    sus = out["perf"]["sustained"]
    ref = sustained(p, kw["flops"], kw["n_wg"], out["cycles_per_round"], out["wgs_per_cu"],
                    (p.mfma_flops_per_clk_cu, p.power_weight_f16))
    assert sus["round_activity"] == ref["round_activity"]
    with pytest.raises(ConfigError, match="hbm_fraction 0.5 with tiles"):
        profile_foreign(gemm, _problem(32, 32, 64), tiles=tiles, hbm_fraction=0.5, **kw)
    with pytest.raises(ConfigError, match="make 16384 workgroups of 256 trips"):
        profile_foreign(gemm, _problem(32, 32, 64), tiles=tiles,
                        **dict(kw, n_wg=1, emulated_iters=4))
