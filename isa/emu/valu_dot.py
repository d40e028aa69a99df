"""Dot-product VALU semantics: v_dot2/4/8 (f16/bf16 into f32, i16/i8/i4 and u16/u8/u4 into 32-bit)
and the accumulating VOP2 forms v_dot*c, which read their destination.
"""
from __future__ import annotations

import numpy as np

from . import denorm
from .dpp import clamp01, dpp_of, plain_reader
from .operand_io import AluModifierError, alu, ops, vector_getter, vector_setter
from .registry import RW_SETS
from .valu_float import F32, F64, _pk_elems


# ----- dot products: D = sum of element products + S2, one rounding (products and sum in f64 for the
# f16/bf16 forms; hardware may differ in the last ulp on cancellation). Integer forms wrap (clamp:
# saturate). v_dot2c_f32_f16 (VOP2) accumulates into D. ------------------------------------------------
def _dot_f(el: str):
    def bind(ins):
        accum = ins.op.startswith("v_dot2c")
        d = ops(ins, 3)[0]
        a, b = _pk_elems(ins, 1, 0, el), _pk_elems(ins, 2, 1, el)
        c = plain_reader(ins, 0 if accum else 3, 2, "f32")
        put = vector_setter(d)

        op, el_t = ins.op, ("f16" if el == "f16" else "")   # bf16 elements: never flushed

        def run(m, w):
            (a0, a1), (b0, b1) = a(w), b(w)
            cv = c(w)
            flushing = w.fp_mode != denorm.DEFAULT_MODE       # MODE (isa.emu.denorm)
            if flushing:
                a0, a1, b0, b1 = (denorm.flush_src(w, x, el_t, op) for x in (a0, a1, b0, b1))
                cv = denorm.flush_src(w, cv, "f32", op)
            s = a0.astype(F64) * b0 + a1.astype(F64) * b1 + cv.astype(F64)
            res = s.astype(F32)
            if flushing:
                res = denorm.flush_dst(w, res, "f32", op)
            if ins.mod("clamp"):
                res = clamp01(res)
            put(w, res.view(np.uint32), w.exec_mask())
        return run
    return bind


alu("v_dot2_f32_f16", "v_dot2c_f32_f16")(_dot_f("f16"))
alu("v_dot2_f32_bf16", "v_dot2c_f32_bf16")(_dot_f("bf16"))   # dot2c bf16: gfx950


def _dot_c_rw(ins):
    from .regkeys import reg_keys
    return [k for op in ins.operands for k in reg_keys(op)], list(reg_keys(ins.operands[0]))


def _dot_i(bits: int, signed: bool):
    n = 32 // bits

    def bind(ins):
        # v_dot{2,4,8}c_i32_* (VOP2, gfx940+): D = dot(S0, S1) + D, no clamp (LLVM VOP2Instructions.td
        # V_DOT4C_I32_I8 / V_DOT2C_I32_I16 / V_DOT8C_I32_I4; clang-22 emits them for sdot4/sdot2/sdot8)
        accum = ins.op[6] == "c"
        if accum and (ins.encoding in ("dpp", "sdwa") or dpp_of(ins) is not None):
            raise AluModifierError(f"{ins}: DPP/SDWA forms of {ins.op} are not modelled")
        d = ops(ins, 3 if accum else 4)[0]
        ga, gb = (vector_getter(ins.operands[i], 1, "b32") for i in (1, 2))
        gc = plain_reader(ins, 0 if accum else 3, 2, "i32" if signed else "u32")
        clamp = bool(ins.mod("clamp", False))
        put = vector_setter(d)
        mask = np.int64((1 << bits) - 1)

        def elems(x):
            x = x.astype(np.int64)
            out = [(x >> np.int64(bits * k)) & mask for k in range(n)]
            if signed:
                out = [np.where(e >= (1 << (bits - 1)), e - (1 << bits), e) for e in out]
            return out

        def run(m, w):
            s = gc(w).astype(np.int64)
            for x, y in zip(elems(ga(w)), elems(gb(w))):
                s = s + x * y
            if clamp:
                s = np.clip(s, -(1 << 31), (1 << 31) - 1) if signed else np.clip(s, 0, 0xFFFFFFFF)
            put(w, (s & 0xFFFFFFFF).astype(np.uint32), w.exec_mask())
        return run
    return bind


for _nm, _b, _s in (("v_dot4_i32_i8", 8, True), ("v_dot4_u32_u8", 8, False), ("v_dot2_i32_i16", 16, True),
                    ("v_dot2_u32_u16", 16, False), ("v_dot8_i32_i4", 4, True), ("v_dot8_u32_u4", 4, False),
                    ("v_dot4c_i32_i8", 8, True), ("v_dot2c_i32_i16", 16, True), ("v_dot8c_i32_i4", 4, True)):
    alu(_nm)(_dot_i(_b, _s))

for _nm in ("v_dot4c_i32_i8", "v_dot2c_i32_i16", "v_dot8c_i32_i4", "v_dot2c_f32_f16", "v_dot2c_f32_bf16"):
    RW_SETS[_nm] = _dot_c_rw   # the spec table lacks the accumulating VOP2 dots: D is read too
