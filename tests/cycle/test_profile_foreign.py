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
