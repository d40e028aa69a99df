"""Denormal modes (isa.emu.denorm): LLVM-compiled kernels in each of the four FLOAT_DENORM_MODE
values, for f32 and for f16/f64, against NumPy references with the same flushing; a hand-written
kernel with default directives (no .amdhsa_float_denorm_mode_32 -> 0, flush); run-time s_setreg
of MODE; the always-flushing v_mad_f32 family. Modes (AMDGPUUsage FLOAT_DENORM_MODE_*): 0 flush
source and destination, 1 flush destination, 2 flush source, 3 none."""
from __future__ import annotations

import struct

import numpy as np
import pytest
from hand_kernel import hand_kernel, needs_mc
from test_llvm_kernels_zoo_util import build, launch, mnemonics, needs_llvm

from isa.codeobj import CodeObject
from isa.emu import Emulator
from isa.emu.denorm import flush

# LLVM "denormal-fp-math" attribute value ("output,input") for each mode: LLVM's
# SIModeRegisterDefaults gives 3 for ieee/ieee, 1 for preserve-sign output only, 2 for
# preserve-sign input only, 0 for both.
ATTR = {0: "preserve-sign,preserve-sign", 1: "preserve-sign,ieee", 2: "ieee,preserve-sign", 3: "ieee,ieee"}

IR = r"""
target triple = "amdgcn-amd-amdhsa"
declare i32 @llvm.amdgcn.workitem.id.x()
declare float @llvm.fma.f32(float, float, float)
define amdgpu_kernel void @mul32(ptr addrspace(1) %x, ptr addrspace(1) %y, ptr addrspace(1) %o) #0 {
  %l = call i32 @llvm.amdgcn.workitem.id.x()
  %px = getelementptr float, ptr addrspace(1) %x, i32 %l
  %py = getelementptr float, ptr addrspace(1) %y, i32 %l
  %po = getelementptr float, ptr addrspace(1) %o, i32 %l
  %a = load float, ptr addrspace(1) %px
  %b = load float, ptr addrspace(1) %py
  %r = fmul float %a, %b
  %s = call float @llvm.fma.f32(float %a, float %b, float %a)
  %t = fadd float %r, %s
  store float %t, ptr addrspace(1) %po
  ret void
}
define amdgpu_kernel void @mul64(ptr addrspace(1) %x, ptr addrspace(1) %y, ptr addrspace(1) %o) #0 {
  %l = call i32 @llvm.amdgcn.workitem.id.x()
  %px = getelementptr double, ptr addrspace(1) %x, i32 %l
  %py = getelementptr double, ptr addrspace(1) %y, i32 %l
  %po = getelementptr double, ptr addrspace(1) %o, i32 %l
  %a = load double, ptr addrspace(1) %px
  %b = load double, ptr addrspace(1) %py
  %r = fmul double %a, %b
  store double %r, ptr addrspace(1) %po
  ret void
}
define amdgpu_kernel void @mul16(ptr addrspace(1) %x, ptr addrspace(1) %y, ptr addrspace(1) %o) #0 {
  %l = call i32 @llvm.amdgcn.workitem.id.x()
  %px = getelementptr half, ptr addrspace(1) %x, i32 %l
  %py = getelementptr half, ptr addrspace(1) %y, i32 %l
  %po = getelementptr half, ptr addrspace(1) %o, i32 %l
  %a = load half, ptr addrspace(1) %px
  %b = load half, ptr addrspace(1) %py
  %r = fmul half %a, %b
  store half %r, ptr addrspace(1) %po
  ret void
}
attributes #0 = { "denormal-fp-math-f32"="ATTR32" "denormal-fp-math"="ATTR64" "amdgpu-flat-work-group-size"="64,64" }
"""


def _src(m32: int, m64: int) -> str:
    return IR.replace("ATTR32", ATTR[m32]).replace("ATTR64", ATTR[m64])


def _inputs(dt, tiny_exp: int, big_exp: int):
    """Lanes that tell the four modes apart: denormal x times a big y (normal result: kept only
    when sources are not flushed), small normals whose product is denormal (kept only when
    results are not flushed), and plain normals."""
    rng = np.random.default_rng(1)
    tiny = np.ldexp(1.0, tiny_exp)          # a denormal of dt
    x = np.array([tiny, -tiny * 3, np.ldexp(1.0, tiny_exp // 2 + 3), 1.5, -2.25, tiny * 5] * 11)[:64]
    y = np.array([np.ldexp(1.0, big_exp), np.ldexp(1.0, big_exp), np.ldexp(1.0, tiny_exp // 2 + 1),
                  0.75, 3.0, 2.0] * 11)[:64]
    x = x * (1 + 0 * rng.random(64))
    return x.astype(dt), y.astype(dt)


def _ftz(v, typ, on):
    return flush(v, typ) if on else v


def _ref_mul(x, y, mode, typ):
    src, dst = not mode & 1, not mode & 2
    a, b = _ftz(x, typ, src), _ftz(y, typ, src)
    return _ftz((a * b).astype(x.dtype), typ, dst)


@needs_llvm
@pytest.mark.parametrize("mode", [0, 1, 2, 3])
def test_f32_kernel_in_each_mode(mode):
    hs = build(_src(mode, 3), "gfx942", lang="ir")
    assert CodeObject.from_bytes(hs).kernels["mul32"].descriptor.float_denorm_mode_32 == mode
    x, y = _inputs(np.float32, -140, 30)
    o = np.zeros(64, np.float32)
    launch(hs, "gfx942", "mul32", x, y, o)
    src, dst = not mode & 1, not mode & 2
    a, b = _ftz(x, "f32", src), _ftz(y, "f32", src)
    r = _ftz(a * b, "f32", dst)
    s = _ftz((a.astype(np.float64) * b + a).astype(np.float32), "f32", dst)   # fma: one rounding
    want = _ftz(_ftz(r, "f32", src) + _ftz(s, "f32", src), "f32", dst)
    ops = mnemonics(hs, "gfx942", "mul32")
    assert np.array_equal(o.view(np.uint32), want.view(np.uint32)), (mode, sorted(ops))
    # the lanes really tell the modes apart
    assert len({tuple(_ref_mul(x, y, m, "f32").view(np.uint32)) for m in range(4)}) == 4


@needs_llvm
@pytest.mark.parametrize("mode", [0, 1, 2, 3])
@pytest.mark.parametrize("kernel,dt,typ,tiny,big", [("mul64", np.float64, "f64", -1040, 60),
                                                    ("mul16", np.float16, "f16", -20, 10)])
def test_f16_f64_kernels_in_each_mode(mode, kernel, dt, typ, tiny, big):
    hs = build(_src(3, mode), "gfx942", lang="ir")
    d = CodeObject.from_bytes(hs).kernels[kernel].descriptor
    assert (d.float_denorm_mode_32, d.float_denorm_mode_16_64) == (3, mode)
    x, y = _inputs(dt, tiny, big)
    o = np.zeros(64, dt)
    launch(hs, "gfx942", kernel, x, y, o)
    want = _ref_mul(x, y, mode, typ)
    assert np.array_equal(o, want), (kernel, mode, o[:6], want[:6])


DEFAULT_BODY = """
  s_load_dwordx2 s[2:3], s[0:1], 0
  v_mov_b32 v1, 0x00800000
  v_mul_f32 v2, 0.5, v1
  v_mov_b32 v4, 0
  v_mov_b32 v5, 0x00100000
  v_mul_f64 v[6:7], 0.5, v[4:5]
  {setreg}
  v_mul_f32 v3, 0.5, v1
  s_getreg_b32 s4, hwreg(HW_REG_MODE, 4, 4)
  v_mov_b32 v8, s4
  v_lshlrev_b32 v0, 5, v0
  s_waitcnt lgkmcnt(0)
  global_store_dword v0, v2, s[2:3]
  global_store_dword v0, v3, s[2:3] offset:4
  global_store_dwordx2 v0, v[6:7], s[2:3] offset:8
  global_store_dword v0, v8, s[2:3] offset:16
  s_endpgm"""
DEFAULT_DIRS = """  .amdhsa_next_free_vgpr 16
  .amdhsa_next_free_sgpr 8
  .amdhsa_accum_offset 16
  .amdhsa_user_sgpr_kernarg_segment_ptr 1
  .amdhsa_user_sgpr_count 2"""


def _run_default(setreg: str):
    hs = hand_kernel(DEFAULT_BODY.format(setreg=setreg), DEFAULT_DIRS)
    d = CodeObject.from_bytes(hs).kernel("k").descriptor
    out = np.zeros(64 * 8, np.uint32)
    emu = Emulator()
    emu.launch(hs, "k", kernargs=struct.pack("<Q", emu.alloc(out)))
    return d, out.reshape(64, 8)


@needs_mc
def test_hand_written_kernel_with_default_directives_flushes_f32_only():
    d, out = _run_default("")
    # no .amdhsa_float_denorm_mode_32: LLVM writes 0 (flush); _16_64 defaults to 3 (keep)
    assert (d.float_denorm_mode_32, d.float_denorm_mode_16_64) == (0, 3)
    assert (out[:, 0] == 0).all() and (out[:, 1] == 0).all()            # 2^-127 flushed to +0
    f64 = out[:, 2:4].copy().view(np.float64)[:, 0]
    assert (f64 == np.ldexp(1.0, -1023)).all()                          # f64 denormal kept
    assert (out[:, 4] == 0b1100).all()                                  # FP_DENORM f32 0, f16/f64 3


@needs_mc
def test_setreg_of_mode_changes_the_flushing_at_run_time():
    _, out = _run_default("s_setreg_imm32_b32 hwreg(HW_REG_MODE, 4, 2), 3")
    assert (out[:, 0] == 0).all()                                       # before: flushed
    assert (out[:, 1].view(np.float32) == np.float32(np.ldexp(1.0, -127))).all()   # after: kept
    assert (out[:, 4] == 0b1111).all()


def test_f16_mads_always_flush_fma_follows_the_mode():
    # 2^-14 (smallest normal f16) * 0.5 = 2^-15, an f16 denormal (0x0200)
    from core_util import run
    m = run("""
      v_mov_b32 v1, 0x0400
      v_mad_f16 v2, 0.5, v1, 0
      v_fma_f16 v3, 0.5, v1, 0
      v_mov_b32 v4, 0x0200
      v_mov_b32 v5, 0
      v_mac_f16 v5, v4, 1.0
      v_mov_b32 v6, 0
      v_fma_f16 v6, v4, 1.0, 0
      s_endpgm""")
    w = m.waves[0]
    assert (w.vgpr[2] == 0).all()                         # v_mad_f16: result flushed in mode 3
    assert (w.vgpr[3] == 0x0200).all()                    # v_fma_f16 keeps the denormal
    assert (w.vgpr[5] == 0).all()                         # v_mac_f16: denormal source flushed
    assert (w.vgpr[6] == 0x0200).all()
