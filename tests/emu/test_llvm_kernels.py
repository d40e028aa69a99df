"""LLVM-compiled OpenCL kernels for gfx942 run on the emulator and match NumPy: vector add,
an LDS tree reduction with barriers, a tiled matmul with LDS tiles; plus launch-ABI details."""
from __future__ import annotations

import shutil
import struct
import subprocess

import numpy as np
import pytest

from isa.emu import Emulator
from isa.emu.errors import GlobalOutOfBoundsError

CLANG, LLD = shutil.which("clang-22"), shutil.which("ld.lld-22")
pytestmark = pytest.mark.skipif(not (CLANG and LLD), reason="clang-22 / ld.lld-22 not installed")

SOURCE = r"""
__kernel void vadd(__global const float* a, __global const float* b, __global float* c, int n) {
  int i = __builtin_amdgcn_workgroup_id_x() * 256 + __builtin_amdgcn_workitem_id_x();
  if (i < n) c[i] = a[i] + b[i];
}

__kernel void reduce(__global const float* x, __global float* out) {
  __local float buf[256];
  uint t = __builtin_amdgcn_workitem_id_x();
  uint g = __builtin_amdgcn_workgroup_id_x();
  buf[t] = x[g * 256 + t];
  for (uint s = 128; s > 0; s >>= 1) {
    __builtin_amdgcn_fence(__ATOMIC_RELEASE, "workgroup");
    __builtin_amdgcn_s_barrier();
    __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "workgroup");
    if (t < s) buf[t] += buf[t + s];
  }
  if (t == 0) out[g] = buf[0];
}

__kernel void reduce_nobarrier(__global const float* x, __global float* out) {
  __local float buf[256];
  uint t = __builtin_amdgcn_workitem_id_x();
  buf[t] = x[t];
  if (t < 128) buf[t] += buf[t + 128];
  if (t == 0) out[0] = buf[0];
}

#define TS 16
__kernel void matmul(__global const float* A, __global const float* B, __global float* C,
                     int M, int N, int K) {
  __local float As[TS][TS];
  __local float Bs[TS][TS];
  int tx = __builtin_amdgcn_workitem_id_x();
  int ty = __builtin_amdgcn_workitem_id_y();
  int row = __builtin_amdgcn_workgroup_id_y() * TS + ty;
  int col = __builtin_amdgcn_workgroup_id_x() * TS + tx;
  float acc = 0.0f;
  for (int k0 = 0; k0 < K; k0 += TS) {
    As[ty][tx] = A[row * K + k0 + tx];
    Bs[ty][tx] = B[(k0 + ty) * N + col];
    __builtin_amdgcn_fence(__ATOMIC_RELEASE, "workgroup");
    __builtin_amdgcn_s_barrier();
    __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "workgroup");
    for (int k = 0; k < TS; ++k) acc += As[ty][k] * Bs[k][tx];
    __builtin_amdgcn_fence(__ATOMIC_RELEASE, "workgroup");
    __builtin_amdgcn_s_barrier();
    __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "workgroup");
  }
  C[row * N + col] = acc;
}

__kernel void dyn_lds(__global const uint* x, __global uint* out, __local uint* buf) {
  uint t = __builtin_amdgcn_workitem_id_x();
  buf[t] = x[t] * 3u;
  __builtin_amdgcn_fence(__ATOMIC_RELEASE, "workgroup");
  __builtin_amdgcn_s_barrier();
  __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "workgroup");
  out[t] = buf[127 - t];
}

__kernel void hidden(__global uint* out) {
  if (__builtin_amdgcn_workitem_id_x() == 0) {
    uint g = __builtin_amdgcn_workgroup_id_x();
    out[g * 4 + 0] = __builtin_amdgcn_workgroup_size_x();
    out[g * 4 + 1] = __builtin_amdgcn_workgroup_size_y();
    out[g * 4 + 2] = __builtin_amdgcn_grid_size_x();
  }
}

__kernel void clobber(__global uint* out) {
  out[__builtin_amdgcn_workitem_id_x()] = __builtin_amdgcn_workgroup_id_x();
}

__kernel void dims(__global uint* out) {
  uint tid = __builtin_amdgcn_workitem_id_x() + 4 * (__builtin_amdgcn_workitem_id_y()
             + 2 * __builtin_amdgcn_workitem_id_z());
  uint wg = __builtin_amdgcn_workgroup_id_x() + 2 * (__builtin_amdgcn_workgroup_id_y()
            + 3 * __builtin_amdgcn_workgroup_id_z());
  out[wg * 32 + tid] = (__builtin_amdgcn_workgroup_id_z() << 24) | (__builtin_amdgcn_workgroup_id_y() << 16)
      | (__builtin_amdgcn_workgroup_id_x() << 12) | (__builtin_amdgcn_workitem_id_z() << 8)
      | (__builtin_amdgcn_workitem_id_y() << 4) | __builtin_amdgcn_workitem_id_x();
}
"""


def _compile(d, extra=()):
    (d / "k.cl").write_text(SOURCE)
    subprocess.run([CLANG, "-target", "amdgcn-amd-amdhsa", "-mcpu=gfx942", "-nogpulib", "-O3",
                    "-Wno-everything", *extra, "-x", "cl", "-c", "-o", str(d / "k.o"), str(d / "k.cl")],
                   check=True, capture_output=True)
    subprocess.run([LLD, "-shared", str(d / "k.o"), "-o", str(d / "k.hsaco")], check=True,
                   capture_output=True)
    return (d / "k.hsaco").read_bytes()


@pytest.fixture(scope="module")
def hsaco(tmp_path_factory):
    return _compile(tmp_path_factory.mktemp("cl"))


def test_kernarg_preload(tmp_path):
    from isa.codeobj import CodeObject
    hs = _compile(tmp_path, ("-mllvm", "-amdgpu-kernarg-preload-count=4"))
    d = CodeObject.from_bytes(hs).kernels["vadd"].descriptor
    assert d.kernarg_preload_spec_length > 0
    a = np.arange(256, dtype=np.float32)
    c = np.zeros(256, np.float32)
    emu = Emulator()
    emu.launch(hs, "vadd", grid=(1, 1, 1), block=(256, 1, 1),
               kernargs=struct.pack("<QQQi", emu.alloc(a), emu.alloc(a), emu.alloc(c), 200))
    assert np.array_equal(c[:200], 2 * a[:200]) and not c[200:].any()


def test_dynamic_lds(hsaco):
    x = np.arange(128, dtype=np.uint32)
    out = np.zeros(128, np.uint32)
    emu = Emulator()
    args = struct.pack("<QQI", emu.alloc(x), emu.alloc(out), 0)   # local pointer: LDS offset 0
    emu.launch(hsaco, "dyn_lds", grid=(1, 1, 1), block=(128, 1, 1), kernargs=args, dynamic_lds=512)
    assert np.array_equal(out, 3 * x[::-1])
    # without the dynamic allocation the LDS writes are dropped and the reads return 0 (AMD ISA
    # guide section 3.6.1; the hardware allocates whole 512-byte blocks, so 256 bytes would fit)
    out[:] = 1
    emu.launch(hsaco, "dyn_lds", grid=(1, 1, 1), block=(128, 1, 1), kernargs=args, dynamic_lds=0)
    assert not out.any()


@pytest.mark.parametrize("seed", [0, 7])
def test_vector_add(hsaco, seed):
    rng = np.random.default_rng(seed)
    n = 1000
    a, b = rng.random(1024, np.float32), rng.random(1024, np.float32)
    c = np.zeros(1024, np.float32)
    emu = Emulator(seed=seed)
    args = struct.pack("<QQQi", emu.alloc(a), emu.alloc(b), emu.alloc(c), n)
    emu.launch(hsaco, "vadd", grid=(4, 1, 1), block=(256, 1, 1), kernargs=args)
    assert np.array_equal(c[:n], a[:n] + b[:n])
    assert not c[n:].any()


def test_vector_add_out_of_bounds_without_guard(hsaco):
    a = np.ones(100, np.float32)
    c = np.zeros(100, np.float32)
    emu = Emulator()
    args = struct.pack("<QQQi", emu.alloc(a), emu.alloc(a), emu.alloc(c), 256)   # n too large
    with pytest.raises(GlobalOutOfBoundsError, match="outside every allocation"):
        emu.launch(hsaco, "vadd", grid=(1, 1, 1), block=(256, 1, 1), kernargs=args)


@pytest.mark.parametrize("seed", [0, 3])
def test_lds_reduction_with_barriers(hsaco, seed):
    x = np.random.default_rng(seed).random(1024, np.float32)
    out = np.zeros(4, np.float32)
    emu = Emulator(seed=seed)
    emu.launch(hsaco, "reduce", grid=(4, 1, 1), block=(256, 1, 1),
               kernargs=struct.pack("<QQ", emu.alloc(x), emu.alloc(out)))
    ref = x.reshape(4, 256).astype(np.float64).sum(1)
    np.testing.assert_allclose(out, ref, rtol=1e-5)


def test_reduction_without_barrier_is_a_race(hsaco):
    from isa.emu.errors import LdsRaceError
    x = np.ones(256, np.float32)
    out = np.zeros(1, np.float32)
    emu = Emulator()
    with pytest.raises(LdsRaceError, match="LDS race at byte"):
        emu.launch(hsaco, "reduce_nobarrier", grid=(1, 1, 1), block=(256, 1, 1),
                   kernargs=struct.pack("<QQ", emu.alloc(x), emu.alloc(out)))


def test_tiled_matmul(hsaco):
    rng = np.random.default_rng(1)
    m_, n_, k_ = 32, 48, 32
    a = rng.random((m_, k_), np.float32)
    b = rng.random((k_, n_), np.float32)
    c = np.zeros((m_, n_), np.float32)
    emu = Emulator(seed=2)
    args = struct.pack("<QQQiii", emu.alloc(a), emu.alloc(b), emu.alloc(c), m_, n_, k_)
    emu.launch(hsaco, "matmul", grid=(n_ // 16, m_ // 16, 1), block=(16, 16, 1), kernargs=args)
    np.testing.assert_allclose(c, a @ b, rtol=1e-5)


def test_workitem_and_workgroup_ids(hsaco):
    out = np.zeros(2 * 3 * 2 * 32, np.uint32)
    emu = Emulator()
    emu.launch(hsaco, "dims", grid=(2, 3, 2), block=(4, 2, 4), kernargs=struct.pack("<Q", emu.alloc(out)))
    want = np.zeros_like(out)
    for gz in range(2):
        for gy in range(3):
            for gx in range(2):
                for z in range(4):
                    for y in range(2):
                        for x in range(4):
                            wg, tid = gx + 2 * (gy + 3 * gz), x + 4 * (y + 2 * z)
                            want[wg * 32 + tid] = gz << 24 | gy << 16 | gx << 12 | z << 8 | y << 4 | x
    assert np.array_equal(out, want)


def test_hidden_args_and_dispatch_packet(hsaco):
    # workgroup_size_* come from the hidden kernargs, grid_size_x from the dispatch packet
    out = np.zeros(12, np.uint32)
    emu = Emulator()
    emu.launch(hsaco, "hidden", grid=(3, 1, 1), block=(64, 2, 1), kernargs=struct.pack("<Q", emu.alloc(out)))
    assert np.array_equal(out.reshape(3, 4)[:, :3], [[64, 2, 192]] * 3)


def test_workgroups_writing_the_same_bytes_race(hsaco):
    from isa.emu.errors import GlobalRaceError
    out = np.zeros(64, np.uint32)
    emu = Emulator()
    args = struct.pack("<Q", emu.alloc(out, "out"))
    emu.launch(hsaco, "clobber", grid=(1, 1, 1), block=(64, 1, 1), kernargs=args)
    emu.launch(hsaco, "clobber", grid=(1, 1, 1), block=(64, 1, 1), kernargs=args)  # launches are ordered
    with pytest.raises(GlobalRaceError, match=r"global write race: byte 0 of out .* written by workgroup"):
        emu.launch(hsaco, "clobber", grid=(2, 1, 1), block=(64, 1, 1), kernargs=args)
