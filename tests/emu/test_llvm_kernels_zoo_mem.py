"""LLVM kernel zoo, part 5: the memory forms clang-22 picks for gfx942/gfx950 (saddr and 64-bit
vaddr globals, sign/zero-extending byte/short loads, d16_hi loads, dwordx3, byte/short stores, LDS
b96/b128 and read2/write2 incl. st64, LDS d16 reads, raw buffers with out-of-range lanes, FLAT
through a generic pointer into LDS or global, private arrays in scratch, global->LDS DMA, packed
f16 / f64 global atomics), run with two seeds against NumPy."""
from __future__ import annotations

import numpy as np
import pytest
from test_llvm_kernels_zoo_util import ARCHES, SEEDS, build, launch, mnemonics, needs_llvm

pytestmark = needs_llvm


MEM_SOURCE = r"""
#pragma OPENCL EXTENSION cl_khr_fp16 : enable
#define L __builtin_amdgcn_workitem_id_x()
#define BARRIER() __builtin_amdgcn_fence(__ATOMIC_RELEASE, "workgroup"); __builtin_amdgcn_s_barrier(); \
                  __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "workgroup")
typedef half h2 __attribute__((ext_vector_type(2)));
typedef struct { float x, y, z; } f3;
__kernel void memforms(__global const char* c8, __global const uchar* u8, __global const short* s16,
                       __global const ushort* u16, __global const half* hs, __global const f3* v3,
                       __global const ulong* idx, __global const uint* table, __global int* iout,
                       __global h2* hout, __global f3* v3out, __global uint* gout) {
  uint l = L;
  iout[l * 4 + 0] = c8[l * 3];                     /* global_load_sbyte, saddr form */
  iout[l * 4 + 1] = u8[l * 5 + 1];                 /* global_load_ubyte */
  iout[l * 4 + 2] = s16[l * 2 + 1];                /* global_load_sshort */
  iout[l * 4 + 3] = u16[127 - l];                  /* global_load_ushort */
  h2 v = hout[l];
  v.y = hs[l * 2];                                 /* global_load_short_d16_hi into a live reg */
  hout[l] = v;
  hout[64 + l] = (h2)(hs[l * 3 % 128], hs[(l * 7 + 1) % 128]);
  f3 t = v3[(l * 5) % 64];                         /* 12-byte loads / stores (dwordx3) */
  v3out[l] = (f3){t.z + 1.0f, t.x, t.y * 2.0f};
  gout[l] = table[idx[l]];                         /* 64-bit divergent index: vaddr form */
  ((__global uchar*)gout)[4 * 64 + l] = (uchar)(l * 7);
  ((__global ushort*)gout)[2 * 64 + 32 + l] = (ushort)(l * 999);
}

__kernel void ldsforms(__global const float4* in, __global const float3* in3, __global float* out) {
  __local float4 b4[64];
  __local float3 b3[64];
  __local float b1[64 * 70];
  uint l = L;
  b4[l] = in[l];                                   /* ds_write_b128 */
  b3[l] = in3[l];                                  /* ds_write_b96 */
  b1[l] = in[l].x; b1[l + 64 * 69] = in[l].y;      /* write2st64 */
  b1[l + 64 * 2] = in[l].z; b1[l + 64] = in[l].w;
  BARRIER();
  float4 a = b4[63 - l];
  float3 c = b3[(l + 5) % 64];
  out[l * 8 + 0] = a.x + a.w;
  out[l * 8 + 1] = a.y - a.z;
  out[l * 8 + 2] = c.x * c.z + c.y;
  out[l * 8 + 3] = b1[(l + 1) % 64] + b1[(l + 1) % 64 + 64 * 69];
  out[l * 8 + 4] = b1[l ^ 1] * b1[(l ^ 1) + 64 * 2];
  out[l * 8 + 5] = b1[l] - b1[l + 1];             /* read2 */
}

__kernel void bufforms(__global uint* p, __global uint* q, int n) {
  /* raw buffers (cdna-facts 5): num_records in bytes, dword3 0x00020000; out-of-range lanes read 0
     and their stores are dropped */
  __amdgpu_buffer_rsrc_t r = __builtin_amdgcn_make_buffer_rsrc(p, 0, n * 4, 0x00020000);
  __amdgpu_buffer_rsrc_t w = __builtin_amdgcn_make_buffer_rsrc(q, 0, n * 4, 0x00020000);
  uint l = L;
  uint v = __builtin_amdgcn_raw_buffer_load_b32(r, l * 4, 0, 0);
  __builtin_amdgcn_raw_buffer_store_b32(v + 1, w, l * 8, 0, 0);
  ushort s = __builtin_amdgcn_raw_buffer_load_b16(r, l * 2, 16, 0);
  __builtin_amdgcn_raw_buffer_store_b16(s, w, l * 8 + 4, 0, 0);
}

__kernel void private_array(__global const uint* x, __global uint* out) {
  uint l = L;
  uint r[256];                                     /* too big for registers: scratch_* with saddr/vaddr */
  for (int i = 0; i < 256; ++i) r[i] = x[(l + i) % 64] ^ (uint)i;
  r[(x[l] >> 16) % 256] += 1000u;
  out[l] = r[x[l] % 256] + r[(x[l] >> 8) % 256];
}

/* global -> LDS DMA (cdna-facts 6): lane l's dword lands at the uniform LDS base + 4 l (16 l for
   the gfx950 16-byte form) */
__kernel void lds_dma(__global const uint* g, __global uint* out) {
  __local uint buf[128];
  uint l = L;
  __builtin_amdgcn_global_load_lds(g + l, buf, 4, 0, 0);
  __builtin_amdgcn_global_load_lds(g + 64 + (l ^ 5), buf + 64, 4, 0, 0);
  BARRIER();
  out[l] = buf[63 - l] + 3u * buf[64 + l];
}
#ifdef GFX950
__kernel void lds_dma16(__global const uint4* g, __global uint* out) {
  __local uint4 buf[64];
  uint l = L;
  __builtin_amdgcn_global_load_lds(g + (l ^ 3), buf, 16, 0, 0);
  BARRIER();
  uint4 v = buf[63 - l];
  out[l] = v.x + 2u * v.y + 3u * v.z + 5u * v.w;
}
#endif

__kernel void halfmem(__global const h2* in, __global half* out, __global h2* acc, __global double* dm) {
  __local half lh[64];
  __local uchar lb[64];
  uint l = L;
  h2 v = in[l];
  lh[l] = v.y;
  lb[l] = (uchar)(__builtin_bit_cast(uint, v) >> 16);
  BARRIER();
  h2 w = in[63 - l];
  w.y = lh[63 - l];                                /* ds_read_u16_d16_hi (sramecc off) */
  w.x = (half)lb[(l + 1) % 64];
  out[2 * l] = w.x; out[2 * l + 1] = w.y;
  __builtin_amdgcn_global_atomic_fadd_v2f16(&acc[l % 4], in[l]);   /* global_atomic_pk_add_f16 */
  __builtin_amdgcn_global_atomic_fmin_f64(&dm[0], (double)l - 3.5);
  __builtin_amdgcn_global_atomic_fmax_f64(&dm[1], (double)l * 0.5);
}

__kernel void genptr(__global uint* g, __global uint* out, int sel) {
  __local uint lb[64];
  uint l = L;
  lb[l] = l * 3;
  BARRIER();
  __generic uint* p = ((l ^ sel) & 1) ? (__generic uint*)g : (__generic uint*)lb;
  out[l] = p[63 - l];                              /* flat load through the LDS aperture or global */
}
"""


def _mem_hsaco(arch):
    # sramecc off: only then may LLVM use d16 loads that preserve the other half (AMDGPUUsage,
    # "d16-preserves-unused-bits" is absent with sramecc)
    extra = ("-cl-std=CL2.0",) + (("-DGFX950",) if arch == "gfx950" else ())
    return build(MEM_SOURCE, arch, extra, features=":sramecc-")


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("arch", ARCHES)
def test_global_memory_forms(arch, seed):
    hs = _mem_hsaco(arch)
    ops = mnemonics(hs, arch, "memforms")
    assert {"global_load_sbyte", "global_load_ubyte", "global_load_sshort", "global_load_ushort",
            "global_load_short_d16_hi", "global_load_dwordx3", "global_store_dwordx3",
            "global_store_byte", "global_store_short"} <= ops, sorted(ops)
    rng = np.random.default_rng(seed)
    c8 = rng.integers(-128, 128, 192).astype(np.int8)
    u8 = rng.integers(0, 256, 320).astype(np.uint8)
    s16 = rng.integers(-32768, 32768, 128).astype(np.int16)
    u16 = rng.integers(0, 65536, 128).astype(np.uint16)
    hsv = rng.standard_normal(128).astype(np.float16)
    v3 = rng.standard_normal((64, 3)).astype(np.float32)
    idx = rng.integers(0, 4096, 64).astype(np.uint64)
    table = rng.integers(0, 1 << 32, 4096, dtype=np.uint32)
    iout = np.zeros(256, np.int32)
    hout0 = rng.standard_normal((128, 2)).astype(np.float16)
    hout = hout0.copy()
    v3out = np.zeros((64, 3), np.float32)
    gout = np.zeros(192, np.uint32)
    launch(hs, arch, "memforms", c8, u8, s16, u16, hsv, v3, idx, table, iout, hout, v3out, gout, seed=seed)
    lanes = np.arange(64)
    want = np.stack([c8[lanes * 3], u8[lanes * 5 + 1], s16[lanes * 2 + 1], u16[127 - lanes]], 1)
    assert np.array_equal(iout.reshape(64, 4), want.astype(np.int32))
    assert np.array_equal(hout[:64, 0].view(np.uint16), hout0[:64, 0].view(np.uint16))
    assert np.array_equal(hout[:64, 1].view(np.uint16), hsv[lanes * 2].view(np.uint16))
    pair = np.stack([hsv[lanes * 3 % 128], hsv[(lanes * 7 + 1) % 128]], 1)
    assert np.array_equal(hout[64:].view(np.uint16), pair.view(np.uint16))
    t = v3[(lanes * 5) % 64]
    assert np.array_equal(v3out, np.stack([t[:, 2] + np.float32(1), t[:, 0], t[:, 1] * np.float32(2)], 1))
    assert np.array_equal(gout[:64], table[idx])
    assert np.array_equal(gout[64:80].view(np.uint8), (lanes * 7).astype(np.uint8))
    assert np.array_equal(gout[80:112].view(np.uint16), (lanes * 999).astype(np.uint16))
    assert not gout[112:].any()


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("arch", ARCHES)
def test_lds_forms(arch, seed):
    hs = _mem_hsaco(arch)
    ops = mnemonics(hs, arch, "ldsforms")
    assert {"ds_write_b128", "ds_read_b128", "ds_write_b96", "ds_read_b96", "ds_read2_b32",
            "ds_read2st64_b32", "ds_write2st64_b32"} <= ops, sorted(ops)
    rng = np.random.default_rng(seed)
    a = rng.standard_normal((64, 4)).astype(np.float32)
    b = rng.standard_normal((64, 4)).astype(np.float32)    # float3 has a 16-byte stride
    out = np.zeros(64 * 8, np.float32)
    launch(hs, arch, "ldsforms", a, b, out, seed=seed)
    lanes = np.arange(64)
    got = out.reshape(64, 8)
    r = a[63 - lanes]
    c = b[(lanes + 5) % 64]
    nxt, sw = (lanes + 1) % 64, lanes ^ 1
    assert np.array_equal(got[:, 0], r[:, 0] + r[:, 3]) and np.array_equal(got[:, 1], r[:, 1] - r[:, 2])
    c2 = (c[:, 0].astype(np.float64) * c[:, 2] + c[:, 1]).astype(np.float32)   # contracted to fma
    assert np.array_equal(got[:, 2], c2)
    assert np.array_equal(got[:, 3], a[nxt, 0] + a[nxt, 1])
    assert np.array_equal(got[:, 4], a[sw, 0] * a[sw, 2])
    assert np.array_equal(got[:, 5], a[:, 0] - np.append(a[1:, 0], a[0, 3]))


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("arch", ARCHES)
def test_buffer_forms(arch, seed):
    hs = _mem_hsaco(arch)
    assert {"buffer_load_dword", "buffer_store_dword", "buffer_load_ushort",
            "buffer_store_short"} <= mnemonics(hs, arch, "bufforms")
    rng = np.random.default_rng(seed)
    n = 40                                                # lanes past n dwords are out of range
    p = rng.integers(0, 1 << 32, 64, dtype=np.uint32)
    q = np.full(128, 0xDEADBEEF, np.uint32)
    launch(hs, arch, "bufforms", p, q, ("i", n), seed=seed)
    lanes = np.arange(64)
    v = np.where(lanes < n, p, 0).astype(np.uint32) + np.uint32(1)
    q2 = q.reshape(64, 2)
    store_ok = lanes * 8 + 4 <= 4 * n - 4                  # dword store in range
    assert np.array_equal(q2[store_ok, 0], v[store_ok]) and np.all(q2[~store_ok, 0] == 0xDEADBEEF)
    half = p.view(np.uint16)
    s_in = lanes * 2 + 16 + 2 <= 4 * n
    s = np.where(s_in, half[np.minimum(lanes + 8, 127)], 0)
    sh_ok = lanes * 8 + 4 + 2 <= 4 * n
    lo = (q2[:, 1] & 0xFFFF)
    assert np.array_equal(lo[sh_ok], s[sh_ok]) and np.all(q2[~sh_ok, 1] == 0xDEADBEEF)
    assert np.all(q2[sh_ok, 1] >> 16 == 0xDEAD)


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("arch", ARCHES)
def test_flat_generic_pointer(arch, seed):
    hs = _mem_hsaco(arch)
    assert "flat_load_dword" in mnemonics(hs, arch, "genptr")
    g = np.random.default_rng(seed).integers(0, 1 << 32, 64, dtype=np.uint32)
    out = np.zeros(64, np.uint32)
    launch(hs, arch, "genptr", g, out, ("i", seed), seed=seed)
    lanes = np.arange(64)
    assert np.array_equal(out, np.where((lanes ^ seed) & 1, g[63 - lanes], (63 - lanes) * 3))


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("arch", ARCHES)
def test_private_array_in_scratch(arch, seed):
    hs = _mem_hsaco(arch)
    ops = mnemonics(hs, arch, "private_array")
    assert {"scratch_store_dwordx4", "scratch_load_dword"} <= ops, sorted(ops)
    rng = np.random.default_rng(seed)
    x = rng.integers(0, 1 << 32, 64, dtype=np.uint32)
    out = np.zeros(64, np.uint32)
    launch(hs, arch, "private_array", x, out, seed=seed)
    lanes = np.arange(64)
    want = np.zeros(64, np.uint64)
    for lane in lanes:
        r = x[(lane + np.arange(256)) % 64].astype(np.uint64) ^ np.arange(256, dtype=np.uint64)
        r[(int(x[lane]) >> 16) % 256] += 1000
        want[lane] = r[int(x[lane]) % 256] + r[(int(x[lane]) >> 8) % 256]
    assert np.array_equal(out, (want & 0xFFFFFFFF).astype(np.uint32))


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("arch", ARCHES)
def test_global_load_lds_dma(arch, seed):
    hs = _mem_hsaco(arch)
    assert "global_load_lds_dword" in mnemonics(hs, arch, "lds_dma")
    rng = np.random.default_rng(seed)
    g = rng.integers(0, 1 << 30, 128, dtype=np.uint32)
    out = np.zeros(64, np.uint32)
    launch(hs, arch, "lds_dma", g, out, seed=seed)
    lanes = np.arange(64)
    second = np.empty(64, np.uint32)
    second[lanes] = g[64 + (lanes ^ 5)]
    assert np.array_equal(out, g[63 - lanes] + np.uint32(3) * second)
    if arch == "gfx950":
        assert "global_load_lds_dwordx4" in mnemonics(hs, arch, "lds_dma16")
        g4 = rng.integers(0, 1 << 28, (64, 4), dtype=np.uint32)
        launch(hs, arch, "lds_dma16", g4, out, seed=seed)
        v = g4[(63 - lanes) ^ 3]
        assert np.array_equal(out, v[:, 0] + 2 * v[:, 1] + 3 * v[:, 2] + 5 * v[:, 3])


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("arch", ARCHES)
def test_half_lds_d16_and_packed_f16_f64_atomics(arch, seed):
    hs = _mem_hsaco(arch)
    ops = mnemonics(hs, arch, "halfmem")
    assert {"ds_read_u16_d16_hi", "global_atomic_pk_add_f16", "global_atomic_min_f64",
            "global_atomic_max_f64"} <= ops, sorted(ops)
    rng = np.random.default_rng(seed)
    vin = (rng.integers(-64, 64, (64, 2)) / 4).astype(np.float16)    # sums exact in f16
    out = np.zeros(128, np.float16)
    acc = np.zeros((4, 2), np.float16)
    dm = np.array([np.inf, -np.inf])
    launch(hs, arch, "halfmem", vin, out, acc, dm, seed=seed)
    lanes = np.arange(64)
    lb = ((vin.view(np.uint32).ravel() >> 16) & 0xFF).astype(np.float16)
    assert np.array_equal(out.reshape(64, 2)[:, 1], vin[63 - lanes, 1])
    assert np.array_equal(out.reshape(64, 2)[:, 0], lb[(lanes + 1) % 64])
    assert np.array_equal(acc, vin.astype(np.float64).reshape(16, 4, 2).sum(0).astype(np.float16))
    assert dm[0] == -3.5 and dm[1] == 31.5
