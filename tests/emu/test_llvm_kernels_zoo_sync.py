"""LLVM kernel zoo, part 4: divergent control flow (per-lane trip counts, nested ifs, early return,
breaks, Collatz while loops), non-inlined function calls (s_swappc_b64, stack in scratch, return
address in v_writelane), and atomics (global 32/64-bit, float, compare-and-swap, LDS 32/64-bit,
raw buffer atomics from LLVM IR) as clang-22 emits them for gfx942/gfx950, run with two seeds;
every atomic check holds for any interleaving of lanes and workgroups."""
from __future__ import annotations

import numpy as np
import pytest
from test_llvm_kernels_zoo_util import ARCHES, SEEDS, build, launch, mnemonics, needs_llvm

pytestmark = needs_llvm
CF_SOURCE = r"""
#define L __builtin_amdgcn_workitem_id_x()
#define GID (__builtin_amdgcn_workgroup_id_x() * 128 + L)
__kernel void divergent(__global const int* pn, __global const int* px, __global int* out) {
  uint g = GID;
  int n = pn[g], x = px[g], acc = 0;
  for (int i = 0; i < n; ++i) {                    /* per-lane trip count */
    if (x & (1 << (i & 7))) {                      /* nested ifs */
      acc += i;
      if (acc > 50) {
        if (g & 1) break;                          /* break out of a divergent loop */
        acc -= 7;
      }
    } else {
      acc ^= i * 3;
    }
  }
  if (x < 0) { out[g] = -1 - acc; return; }        /* early return */
  int w = (x & 0xff) | 1, steps = 0;
  while (1) {                                      /* Collatz: data-dependent while */
    if (w == 1) break;
    w = (w & 1) ? 3 * w + 1 : w / 2;
    if (++steps > 60) break;
  }
  out[g] = acc * 1000 + steps;
}

/* non-inlined calls: s_getpc_b64 + relocated offset + s_swappc_b64, returns by s_setpc_b64; the
   nested call makes LLVM save the return address with v_writelane / v_readlane and use the stack
   (s32) in scratch */
__attribute__((noinline)) uint leaf(uint a, uint b) { return a * b + (a >> 3); }
__attribute__((noinline)) uint middle(__global const uint* p, uint n, uint k) {
  uint buf[40];
  for (uint i = 0; i < 40; ++i) buf[i] = p[(k + i) % 64];
  uint s = 0;
  for (uint i = 0; i < n; ++i) s += leaf(buf[(s + i) % 40], i);
  return s;
}
/* wave-uniform control flow: a scalar loop (s_cmp + s_cbranch_scc) whose float test on a uniform
   value is a VALU compare into VCC (s_cbranch_vccz / vccnz), with a uniform break */
__kernel void uniform_cf(__global const float* fx, __global const int* ix, __global int* out, int n,
                         float thr) {
  int acc = 0;
  for (int i = 0; i < n; ++i) {
    if (fx[i] > thr) acc += i * 3;
    else if (ix[i] & 1) acc -= ix[i];
    else { acc ^= 0x55; if (acc > 1000) break; }
  }
  out[L] = acc + (int)L;
}

__kernel void calls(__global const uint* x, __global uint* out) {
  uint g = GID;
  out[g] = middle(x, x[g] % 9, g) ^ leaf(x[g], g);
}
"""


def _calls_ref(x):
    leaf = lambda a, b: (a * b + (a >> 3)) & 0xFFFFFFFF
    out = []
    for g in range(len(x)):
        buf = [int(x[(g + i) % 64]) for i in range(40)]
        s = 0
        for i in range(int(x[g]) % 9):
            s = (s + leaf(buf[(s + i) % 40], i)) & 0xFFFFFFFF
        out.append(s ^ leaf(int(x[g]), g))
    return np.array(out, np.uint32)


def _divergent_ref(g, n, x):
    acc = 0
    for i in range(n):
        if x & (1 << (i & 7)):
            acc += i
            if acc > 50:
                if g & 1:
                    break
                acc -= 7
        else:
            acc ^= i * 3
    if x < 0:
        return -1 - acc
    w, steps = (x & 0xFF) | 1, 0
    while w != 1:
        w = 3 * w + 1 if w & 1 else w // 2
        steps += 1
        if steps > 60:
            break
    return acc * 1000 + steps


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("arch", ARCHES)
def test_divergent_control_flow(arch, seed):
    hs = build(CF_SOURCE, arch)
    ops = mnemonics(hs, arch, "divergent")
    assert {"s_and_saveexec_b64", "s_cbranch_execz"} <= ops, sorted(ops)
    assert ops & {"s_andn2_b64", "s_or_b64", "s_andn2_saveexec_b64", "s_xor_b64"}, sorted(ops)
    rng = np.random.default_rng(seed)
    n = rng.integers(0, 40, 256).astype(np.int32)
    n[:64] = 0                                           # one wave that skips the loop entirely
    x = rng.integers(-(1 << 31), 1 << 31, 256).astype(np.int32)
    x[64:128] = np.abs(x[64:128])                        # one wave without early returns
    out = np.zeros(256, np.int32)
    launch(hs, arch, "divergent", n, x, out, grid=(2, 1, 1), block=(128, 1, 1), seed=seed)
    want = np.array([_divergent_ref(g, int(n[g]), int(x[g])) for g in range(256)], np.int64)
    assert np.array_equal(out, want.astype(np.int32))


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("arch", ARCHES)
def test_uniform_control_flow(arch, seed):
    hs = build(CF_SOURCE, arch)
    ops = mnemonics(hs, arch, "uniform_cf")
    assert {"s_cbranch_vccz", "s_cbranch_vccnz"} & ops, sorted(ops)
    assert any(o.startswith("s_cbranch_scc") for o in ops), sorted(ops)
    rng = np.random.default_rng(seed)
    n = 48
    fx = rng.standard_normal(n).astype(np.float32)
    ix = rng.integers(-500, 500, n).astype(np.int32)
    thr = float(np.float32(0.3))
    out = np.zeros(64, np.int32)
    launch(hs, arch, "uniform_cf", fx, ix, out, ("i", n), ("f", thr), seed=seed)
    acc = 0
    for i in range(n):
        if fx[i] > np.float32(thr):
            acc += i * 3
        elif ix[i] & 1:
            acc -= int(ix[i])
        else:
            acc ^= 0x55
            if acc > 1000:
                break
    assert np.array_equal(out, acc + np.arange(64))


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("arch", ARCHES)
def test_function_calls(arch, seed):
    hs = build(CF_SOURCE, arch)
    ops = mnemonics(hs, arch, "calls")
    assert {"s_getpc_b64", "s_swappc_b64"} <= ops, sorted(ops)
    x = np.random.default_rng(seed).integers(0, 1 << 32, 64, dtype=np.uint32)
    out = np.zeros(64, np.uint32)
    launch(hs, arch, "calls", x, out, block=(64, 1, 1), seed=seed)
    assert np.array_equal(out, _calls_ref(x))


ATOMIC_SOURCE = r"""
#define L __builtin_amdgcn_workitem_id_x()
#define WG __builtin_amdgcn_workgroup_id_x()
#define GID (WG * 64 + L)
#define BARRIER() __builtin_amdgcn_fence(__ATOMIC_RELEASE, "workgroup"); __builtin_amdgcn_s_barrier(); \
                  __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "workgroup")
__kernel void atomics(__global uint* ctr, __global int* mx, __global uint* slots, __global const uint* px,
                      __global uint* ret, __global ulong* c64, __global float* fsum, __global uint* lres) {
  __local uint lc[4];
  uint g = GID, v = px[g];
  if (L < 4) lc[L] = 0;
  BARRIER();
  __atomic_fetch_add(&ctr[0], v, __ATOMIC_RELAXED);
  ret[g] = __atomic_fetch_add(&ctr[1], 1u, __ATOMIC_RELAXED);
  __atomic_fetch_max(&mx[0], (int)v, __ATOMIC_RELAXED);
  ret[256 + g] = __atomic_fetch_min(&mx[1], (int)v, __ATOMIC_RELAXED);
  uint h = (v * 2654435761u) % 512u;              /* open-addressing insert by compare-and-swap */
  for (;;) {
    uint expect = 0;
    if (__atomic_compare_exchange_n(&slots[h], &expect, g + 1, false, __ATOMIC_RELAXED, __ATOMIC_RELAXED))
      break;
    h = (h + 1) % 512u;
  }
  __atomic_fetch_add(&c64[0], (ulong)v << 20, __ATOMIC_RELAXED);
  ret[512 + g] = (uint)(__atomic_fetch_add(&c64[1], (ulong)(v >> 8) + 0x100000000ul, __ATOMIC_RELAXED) >> 32);
  __atomic_fetch_add(&fsum[0], (float)(v & 1023), __ATOMIC_RELAXED);
  __atomic_fetch_add(&lc[0], v, __ATOMIC_RELAXED);
  ret[768 + g] = __atomic_fetch_add(&lc[1], 1u, __ATOMIC_RELAXED);
  __atomic_fetch_max(&lc[2], v, __ATOMIC_RELAXED);
  uint e2 = lc[3];
  while (!__atomic_compare_exchange_n(&lc[3], &e2, e2 ^ v, false, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {}
  BARRIER();
  if (L < 4) lres[WG * 4 + L] = lc[L];
}

__kernel void atomics64(__global double* dsum, __global float* fmx, __global ulong* u64,
                        __global const ulong* px, __global ulong* ret, __global ulong* lres) {
  __local ulong lc[3];
  uint g = GID;
  ulong v = px[g];
  if (L < 3) lc[L] = 0;
  BARRIER();
  __atomic_fetch_add(&dsum[0], (double)(v & 0xffff) * 0.25, __ATOMIC_RELAXED);   /* add_f64 */
  __atomic_fetch_max(&fmx[0], (float)(v & 0xfff) - 100.0f, __ATOMIC_RELAXED);     /* CAS loop */
  __atomic_fetch_max(&u64[0], v, __ATOMIC_RELAXED);                              /* umax_x2 */
  ret[g] = __atomic_exchange_n(&u64[1], v, __ATOMIC_RELAXED);                    /* swap_x2 */
  __atomic_fetch_add(&lc[0], v, __ATOMIC_RELAXED);                               /* ds_add_u64 */
  __atomic_fetch_max(&lc[1], v, __ATOMIC_RELAXED);                               /* ds_max_u64 */
  ulong e = lc[2];
  while (!__atomic_compare_exchange_n(&lc[2], &e, e ^ v, false, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {}
  BARRIER();
  if (L < 3) lres[WG * 3 + L] = lc[L];
}
"""


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("arch", ARCHES)
def test_atomics(arch, seed):
    """Every check is a property that holds for any interleaving of lanes and workgroups: sums,
    extremes, fetch-add results forming a permutation, each CAS-inserted id present once."""
    hs = build(ATOMIC_SOURCE, arch)
    ops = mnemonics(hs, arch, "atomics")
    assert {"global_atomic_add", "global_atomic_smax", "global_atomic_smin", "global_atomic_cmpswap",
            "global_atomic_add_x2", "global_atomic_add_f32", "ds_add_u32", "ds_add_rtn_u32",
            "ds_max_u32", "ds_cmpst_rtn_b32"} <= ops, sorted(ops)
    rng = np.random.default_rng(seed)
    v = rng.integers(0, 1 << 31, 256).astype(np.uint32)
    ctr = np.zeros(2, np.uint32)
    mx = np.array([-(1 << 31), (1 << 31) - 1], np.int32)
    slots = np.zeros(512, np.uint32)
    ret = np.zeros(1024, np.uint32)
    c64 = np.array([0, 0], np.uint64)
    fsum = np.zeros(1, np.float32)
    lres = np.zeros(16, np.uint32)
    launch(hs, arch, "atomics", ctr, mx, slots, v, ret, c64, fsum, lres, grid=(4, 1, 1), seed=seed)
    s = v.astype(np.uint64)
    assert ctr[0] == s.sum() % (1 << 32) and ctr[1] == 256
    assert np.array_equal(np.sort(ret[:256]), np.arange(256))
    assert mx[0] == v.astype(np.int32).max() and mx[1] == v.astype(np.int32).min()
    mins = ret[256:512].view(np.int32)
    assert np.all(mins >= v.astype(np.int32).min()) and (mins == (1 << 31) - 1).sum() == 1
    assert np.array_equal(np.sort(slots[slots != 0]), np.arange(1, 257))
    assert int(c64[0]) == int((s << np.uint64(20)).sum()) % (1 << 64)
    assert int(c64[1]) == int((s >> np.uint64(8)).sum()) + (256 << 32)   # low word never carries
    assert np.array_equal(np.sort(ret[512:768]), np.arange(256))   # high words: 0..255 added in order
    assert fsum[0] == float((v & 1023).sum())                    # integers < 2^24: exact in any order
    lr = lres.reshape(4, 4)
    vw = v.reshape(4, 64).astype(np.uint64)
    assert np.array_equal(lr[:, 0], (vw.sum(1) % (1 << 32)).astype(np.uint32))
    assert np.array_equal(lr[:, 1], [64] * 4) and np.array_equal(lr[:, 2], vw.max(1))
    assert np.array_equal(lr[:, 3], np.bitwise_xor.reduce(v.reshape(4, 64), axis=1))
    assert all(np.array_equal(np.sort(ret[768 + 64 * i:768 + 64 * (i + 1)]), np.arange(64)) for i in range(4))


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("arch", ARCHES)
def test_atomics_64bit(arch, seed):
    hs = build(ATOMIC_SOURCE, arch)
    ops = mnemonics(hs, arch, "atomics64")
    assert {"global_atomic_add_f64", "global_atomic_cmpswap", "global_atomic_umax_x2",
            "global_atomic_swap_x2", "ds_add_u64", "ds_max_u64", "ds_cmpst_rtn_b64"} <= ops, sorted(ops)
    rng = np.random.default_rng(seed)
    v = rng.integers(0, 1 << 64, 256, dtype=np.uint64)
    dsum, fmx = np.zeros(1), np.full(1, -np.inf, np.float32)
    u64 = np.array([0, 12345], np.uint64)
    ret = np.zeros(256, np.uint64)
    lres = np.zeros(12, np.uint64)
    launch(hs, arch, "atomics64", dsum, fmx, u64, v, ret, lres, grid=(4, 1, 1), seed=seed)
    assert dsum[0] == float((v & np.uint64(0xFFFF)).sum()) * 0.25          # exact in f64
    assert fmx[0] == float((v & np.uint64(0xFFF)).max()) - 100
    assert u64[0] == v.max()
    # exchange: the returned old values plus the final value are the initial value and all of v
    assert sorted([int(r) for r in ret] + [int(u64[1])]) == sorted([12345] + [int(x) for x in v])
    lr, vw = lres.reshape(4, 3), v.reshape(4, 64)
    assert [int(x) for x in lr[:, 0]] == [sum(int(x) for x in row) % (1 << 64) for row in vw]
    assert np.array_equal(lr[:, 1], vw.max(1))
    assert np.array_equal(lr[:, 2], np.bitwise_xor.reduce(vw, axis=1))


# Raw buffer atomics have no OpenCL builtin: LLVM IR with the llvm.amdgcn.raw.ptr.buffer.atomic.*
# intrinsics (what Triton's buffer ops lower to) -> buffer_atomic_cmpswap / add_x2 / add_f64 /
# pk_add_f16, all returning (sc0).
BUFFER_ATOMIC_IR = r"""
target triple = "amdgcn-amd-amdhsa"
declare i32 @llvm.amdgcn.workitem.id.x()
declare ptr addrspace(8) @llvm.amdgcn.make.buffer.rsrc.p8.p1(ptr addrspace(1), i16, i64, i32)
declare i32 @llvm.amdgcn.raw.ptr.buffer.atomic.cmpswap.i32(i32, i32, ptr addrspace(8), i32, i32, i32)
declare i64 @llvm.amdgcn.raw.ptr.buffer.atomic.add.i64(i64, ptr addrspace(8), i32, i32, i32)
declare double @llvm.amdgcn.raw.ptr.buffer.atomic.fadd.f64(double, ptr addrspace(8), i32, i32, i32)
declare <2 x half> @llvm.amdgcn.raw.ptr.buffer.atomic.fadd.v2f16(<2 x half>, ptr addrspace(8), i32, i32, i32)
define amdgpu_kernel void @bufatom(ptr addrspace(1) %p, ptr addrspace(1) %out) {
  %r = call ptr addrspace(8) @llvm.amdgcn.make.buffer.rsrc.p8.p1(ptr addrspace(1) %p, i16 0, i64 64, i32 131072)
  %l = call i32 @llvm.amdgcn.workitem.id.x()
  %l1 = add i32 %l, 1
  %o = call i32 @llvm.amdgcn.raw.ptr.buffer.atomic.cmpswap.i32(i32 %l1, i32 0, ptr addrspace(8) %r, i32 0, i32 0, i32 0)
  %l64 = zext i32 %l1 to i64
  %a = call i64 @llvm.amdgcn.raw.ptr.buffer.atomic.add.i64(i64 %l64, ptr addrspace(8) %r, i32 8, i32 0, i32 0)
  %d = uitofp i32 %l to double
  %f = call double @llvm.amdgcn.raw.ptr.buffer.atomic.fadd.f64(double %d, ptr addrspace(8) %r, i32 16, i32 0, i32 0)
  %h = call <2 x half> @llvm.amdgcn.raw.ptr.buffer.atomic.fadd.v2f16(<2 x half> <half 1.0, half 0.5>, ptr addrspace(8) %r, i32 24, i32 0, i32 0)
  %ofs = mul i32 %l, 4
  %p0 = getelementptr i32, ptr addrspace(1) %out, i32 %l
  store i32 %o, ptr addrspace(1) %p0
  %p1 = getelementptr i64, ptr addrspace(1) %out, i32 32
  %p1b = getelementptr i64, ptr addrspace(1) %p1, i32 %l
  store i64 %a, ptr addrspace(1) %p1b
  %p2 = getelementptr double, ptr addrspace(1) %out, i32 96
  %p2b = getelementptr double, ptr addrspace(1) %p2, i32 %l
  store double %f, ptr addrspace(1) %p2b
  %p3 = getelementptr i32, ptr addrspace(1) %out, i32 320
  %p3b = getelementptr <2 x half>, ptr addrspace(1) %p3, i32 %l
  store <2 x half> %h, ptr addrspace(1) %p3b
  ret void
}
"""


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("arch", ARCHES)
def test_buffer_atomics_from_llvm_ir(arch, seed):
    hs = build(BUFFER_ATOMIC_IR, arch, lang="ir")
    assert {"buffer_atomic_cmpswap", "buffer_atomic_add_x2", "buffer_atomic_add_f64",
            "buffer_atomic_pk_add_f16"} <= mnemonics(hs, arch, "bufatom")
    p = np.zeros(16, np.uint32)
    out = np.zeros(384, np.uint32)
    launch(hs, arch, "bufatom", p, out, seed=seed)
    old_cas = out[:64]
    winner = np.flatnonzero(old_cas == 0)
    assert len(winner) == 1 and p[0] == winner[0] + 1 and np.all(np.delete(old_cas, winner) == p[0])
    assert p[2:4].view(np.uint64)[0] == 2080 and p[4:6].view(np.float64)[0] == 2016.0
    assert np.array_equal(p[6:7].view(np.float16), [64.0, 32.0])
    old_add = out[64:192].view(np.uint64)
    assert len(set(old_add.tolist())) == 64 and old_add.max() < 2080 and 0 in old_add
    old_f = out[192:320].view(np.float64)
    assert old_f.min() == 0.0 and old_f.max() < 2016.0
    old_h = out[320:384].view(np.float16).reshape(64, 2)
    assert sorted(old_h[:, 0].tolist()) == [float(i) for i in range(64)]
