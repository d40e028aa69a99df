"""Denormal modes in the ops outside bind_vop (isa.emu.denorm): the f32 transcendentals that always
flush, v_cmp_class that never flushes, VOPC compares, v_pk_*, v_fma_mix* and the f16 dot products
that follow FLOAT_DENORM_MODE. LLVM-IR kernels compiled with clang-22 in flush mode ("preserve-sign",
mode 0) and in IEEE mode (3) run on the emulator against NumPy references with the same flushing;
the inputs are chosen so that flushing changes the answer. A check of llc-22's output pins the
LLVM facts denorm.py cites (scaling around the f32 transcendentals only when denormals are kept)."""
from __future__ import annotations

import shutil
import subprocess

import numpy as np
import pytest
from core_util import run
from test_llvm_kernels_zoo_util import build, launch, mnemonics, needs_llvm

from isa.emu.denorm import flush

LLC = shutil.which("llc-22")
ATTR = {0: "preserve-sign,preserve-sign", 3: "ieee,ieee"}

HEAD = r"""
target triple = "amdgcn-amd-amdhsa"
declare i32 @llvm.amdgcn.workitem.id.x()
declare float @llvm.exp2.f32(float)
declare float @llvm.log2.f32(float)
declare float @llvm.sqrt.f32(float)
declare i1 @llvm.is.fpclass.f32(float, i32)
declare float @llvm.fma.f32(float, float, float)
declare <2 x float> @llvm.fma.v2f32(<2 x float>, <2 x float>, <2 x float>)
"""
UNARY = r"""
define amdgpu_kernel void @NAME(ptr addrspace(1) %x, ptr addrspace(1) %y, ptr addrspace(1) %o) #0 {
  %l = call i32 @llvm.amdgcn.workitem.id.x()
  %px = getelementptr float, ptr addrspace(1) %x, i32 %l
  %py = getelementptr float, ptr addrspace(1) %y, i32 %l
  %po = getelementptr float, ptr addrspace(1) %o, i32 %l
  %a = load float, ptr addrspace(1) %px
  %b = load float, ptr addrspace(1) %py
BODY
  store float %r, ptr addrspace(1) %po
  ret void
}
"""
BODIES = {
    "exp2": "  %r = call float @llvm.exp2.f32(float %a)",
    "log2": "  %r = call float @llvm.log2.f32(float %a)",
    "rcp": "  %r = fdiv float 1.0, %a, !fpmath !0",
    "sqrt": "  %r = call float @llvm.sqrt.f32(float %a), !fpmath !0",
    "isdenorm": "  %c = call i1 @llvm.is.fpclass.f32(float %a, i32 144)\n  %r = uitofp i1 %c to float",
    "cmplt": "  %c = fcmp olt float %a, %b\n  %r = uitofp i1 %c to float",
    "pkfma": ("  %va = insertelement <2 x float> poison, float %a, i32 0\n"
              "  %va2 = insertelement <2 x float> %va, float %b, i32 1\n"
              "  %vr = call <2 x float> @llvm.fma.v2f32(<2 x float> %va2, <2 x float> %va2, <2 x float> %va2)\n"
              "  %r0 = extractelement <2 x float> %vr, i32 0\n"
              "  %r1 = extractelement <2 x float> %vr, i32 1\n"
              "  %r = fadd float %r0, %r1"),
    "mix": ("  %bits = bitcast float %a to <2 x half>\n"
            "  %h0 = extractelement <2 x half> %bits, i32 0\n"
            "  %h1 = extractelement <2 x half> %bits, i32 1\n"
            "  %e0 = fpext half %h0 to float\n  %e1 = fpext half %h1 to float\n"
            "  %r = call float @llvm.fma.f32(float %e0, float %e1, float %b)"),
}
TAIL = '!0 = !{float 2.5}\nattributes #0 = { "denormal-fp-math-f32"="ATTR" "denormal-fp-math"="ATTR" ' \
       '"amdgpu-flat-work-group-size"="64,64" }\n'


def _kernel(mode: int) -> bytes:
    src = HEAD + "".join(UNARY.replace("NAME", k).replace("BODY", b) for k, b in BODIES.items())
    return build(src + TAIL.replace("ATTR", ATTR[mode]), "gfx942", lang="ir")


def _run(mode: int, name: str, x, y):
    hs = _kernel(mode)
    o = np.zeros(64, np.float32)
    launch(hs, "gfx942", name, x.astype(np.float32), y.astype(np.float32), o)
    return o, mnemonics(hs, "gfx942", name)


def _f32(*vals):
    return np.resize(np.array(vals, np.float64), 64).astype(np.float32)


D = np.float32(np.ldexp(1.0, -130))          # an f32 denormal


def _ftz(v, on):
    return flush(np.asarray(v, np.float32), "f32") if on else np.asarray(v, np.float32)


@needs_llvm
@pytest.mark.parametrize("mode", [0, 3])
def test_exp2_flushes_denormal_results_whatever_the_mode(mode):
    x = _f32(-130.0, -140.5, -127.25, 3.5, -1.0, -149.0)
    o, ops = _run(mode, "exp2", x, x)
    assert "v_exp_f32" in ops
    want = np.exp2(x.astype(np.float64)).astype(np.float32)
    if mode == 0:       # bare v_exp_f32: the denormal results are flushed
        assert np.array_equal(o, _ftz(want, True))
        assert (o[:3] == 0).all()
    else:               # LLVM's IEEE sequence (exp2(x+64)*2^-64) is right only if v_exp_f32 flushes
        assert np.allclose(o, want, rtol=2e-7, atol=0) and (o[:3] != 0).all()


@needs_llvm
@pytest.mark.parametrize("mode", [0, 3])
def test_log2_rcp_sqrt_flush_denormal_sources_whatever_the_mode(mode):
    x = _f32(D, D * 7, np.ldexp(1.0, -149), 2.0, 0.375, 1e30)
    for name, ref, inst in (("log2", np.log2, "v_log_f32"), ("rcp", lambda v: 1.0 / v, "v_rcp_f32"),
                            ("sqrt", np.sqrt, "v_sqrt_f32")):
        o, ops = _run(mode, name, x, x)
        assert inst in ops, (name, sorted(ops))
        want = ref(x.astype(np.float64)).astype(np.float32)
        if mode == 0:   # bare instruction: a denormal source reads as 0 -> -inf, inf, 0
            flushed = ref(_ftz(x, True).astype(np.float64)).astype(np.float32)
            assert np.array_equal(o[:3], flushed[:3]), (name, o[:3])
            assert not np.allclose(o[:3], want[:3], rtol=1e-3, atol=0), name
        else:           # LLVM scales the source up first: the answer is the IEEE one
            assert np.allclose(o, want, rtol=3e-7, atol=0), (name, o[:6], want[:6])


@needs_llvm
@pytest.mark.parametrize("mode", [0, 3])
def test_cmp_class_never_flushes_compares_follow_the_mode(mode):
    x = _f32(D, -D, 0.0, 1.0, np.ldexp(1.0, -126), -D * 3)
    o, ops = _run(mode, "isdenorm", x, x)
    assert "v_cmp_class_f32" in ops
    assert np.array_equal(o, _f32(1, 1, 0, 0, 0, 1))          # the bits, in every mode
    y = _f32(D * 2, D * 2, 1.0, 1.0, 1.0, 0.0)
    o, ops = _run(mode, "cmplt", x, y)
    assert "v_cmp_gt_f32" in ops or "v_cmp_lt_f32" in ops or "v_cmp_nge_f32" in ops
    # D < 2D only when denormal sources are kept; flushed they compare 0 < 0
    a, b = _ftz(x, mode == 0), _ftz(y, mode == 0)
    assert np.array_equal(o, (a < b).astype(np.float32))
    assert o[0] == (1.0 if mode == 3 else 0.0)


@needs_llvm
@pytest.mark.parametrize("mode", [0, 3])
def test_pk_fma_f32_follows_the_mode(mode):
    # r = fma(a,a,a) + fma(b,b,b): a denormal a gives a (kept) or 0 (flushed)
    x = _f32(D, -D * 5, 1.5, D * 9)
    y = _f32(0.0, 0.0, 2.0, 0.0)
    o, ops = _run(mode, "pkfma", x, y)
    assert "v_pk_fma_f32" in ops
    fl = mode == 0

    def fma(v):
        v = _ftz(v, fl).astype(np.float64)
        return _ftz((v * v + v).astype(np.float32), fl)
    want = _ftz(_ftz(fma(x), fl) + _ftz(fma(y), fl), fl)
    assert np.array_equal(o, want)
    assert (o[[0, 1, 3]] != 0).all() == (mode == 3)


@needs_llvm
@pytest.mark.parametrize("mode", [0, 3])
def test_fma_mix_follows_the_mode(mode):
    # a packs two f16: h0 = an f16 denormal (0x0200 = 2^-15), h1 = 1.0; r = h0 * h1 + b
    h = np.resize(np.array([0x3C000200, 0x3C008001, 0x40004000, 0x3C000300], np.uint32), 64)
    x = h.view(np.float32)
    y = _f32(0.0, 0.0, 1.0, D)
    o, ops = _run(mode, "mix", x, y)
    assert "v_fma_mix_f32" in ops
    h0 = (h & 0xFFFF).astype(np.uint16).view(np.float16)
    h1 = (h >> 16).astype(np.uint16).view(np.float16)
    fl = mode == 0
    a0 = flush(h0, "f16") if fl else h0
    a1 = flush(h1, "f16") if fl else h1
    want = _ftz((a0.astype(np.float64) * a1 + _ftz(y, fl)).astype(np.float32), fl)
    assert np.array_equal(o, want), (o[:4], want[:4])
    assert (o[0] != 0) == (mode == 3)


def test_dot2_f16_follows_the_mode_bf16_does_not_flush():
    # v1 = (f16 denormal 0x0200, 1.0), v2 = (1.0, 0); dot = 2^-15 kept, 0 under f16 flush
    body = """
      v_mov_b32 v1, 0x3c000200
      v_mov_b32 v2, 0x00003c00
      v_mov_b32 v3, 0
      v_dot2_f32_f16 v4, v1, v2, v3
      v_mov_b32 v5, 0x3f800001
      v_mov_b32 v6, 0x00003f80
      v_dot2_f32_f16 v7, v5, v6, v3
      s_endpgm"""
    keep = run(body).waves[0]
    assert (keep.vgpr[4].view(np.float32) == np.float32(2.0 ** -15)).all()
    fl = run("  s_setreg_imm32_b32 hwreg(HW_REG_MODE, 4, 4), 0\n  s_nop 1\n" + body).waves[0]
    assert (fl.vgpr[4] == 0).all()


@pytest.mark.skipif(not LLC, reason="llc-22 not installed")
def test_llvm_scales_around_f32_transcendentals_only_when_denormals_are_kept():
    """The LLVM facts denorm.py cites: under "ieee" LLVM wraps v_exp/v_log/v_sqrt/v_rcp_f32 in
    ldexp scaling (so the instruction alone would flush), under "preserve-sign" it emits the bare
    instruction; v_cmp_class implements is.fpclass(subnormal) in both modes."""
    ir = HEAD + "".join(
        f"define float @{k}(float %a, float %b) #0 {{\n{b}\n  ret float %r\n}}\n"
        for k, b in BODIES.items() if k in ("exp2", "log2", "rcp", "sqrt", "isdenorm"))
    out = {}
    for mode in (0, 3):
        r = subprocess.run([LLC, "-mtriple=amdgcn-amd-amdhsa", "-mcpu=gfx942", "-O2", "-o", "-"],
                           input=ir + TAIL.replace("ATTR", ATTR[mode]).replace(
                               ' "amdgpu-flat-work-group-size"="64,64"', ""),
                           capture_output=True, text=True, check=True)
        funcs, cur = {}, None
        for line in r.stdout.splitlines():
            if line and not line[0].isspace() and line.endswith(":") is False and ":" in line \
                    and line.split(":")[0] in BODIES:
                cur = line.split(":")[0]
                funcs[cur] = []
            elif cur and line.strip().startswith("v_"):
                funcs[cur].append(line.split()[0])
        out[mode] = funcs
    for k in ("exp2", "log2", "rcp", "sqrt"):
        assert "v_ldexp_f32" in out[3][k], (k, out[3][k])
        assert "v_ldexp_f32" not in out[0][k], (k, out[0][k])
    assert "v_cmp_class_f32_e32" in out[0]["isdenorm"] and "v_cmp_class_f32_e32" in out[3]["isdenorm"]


def test_f32_transcendentals_flush_in_ieee_mode_f16_ones_do_not():
    # default MODE (FP_DENORM 3/3): v_exp/log/rcp/sqrt/rsq_f32 still flush; v_exp_f16 does not
    w = run("""
      v_mov_b32 v1, 0xc3020000
      v_exp_f32 v2, v1
      v_mov_b32 v3, 0x00000100
      v_log_f32 v4, v3
      v_rcp_f32 v5, v3
      v_sqrt_f32 v6, v3
      v_rsq_f32 v7, v3
      v_mov_b32 v8, 0xcc00
      v_exp_f16 v9, v8
      v_mul_f32 v10, 1.0, v3
      s_endpgm""").waves[0]
    f = lambda r: w.vgpr[r].view(np.float32)
    assert (f(2) == 0).all()                                   # exp2(-130) = 2^-130 flushed
    assert (f(4) == -np.inf).all() and (f(5) == np.inf).all()  # denormal source read as +0
    assert (f(6) == 0).all() and (f(7) == np.inf).all()
    assert (w.vgpr[9] & 0xFFFF == 0x0100).all()               # exp2(-16) = 2^-16, an f16 denormal, kept
    assert (w.vgpr[10] == 0x100).all()                         # an ordinary op keeps it in mode 3
