"""Vector compares (VOPC and their VOP3 forms): v_cmp_* and v_cmpx_* on f16/f32/f64, i16/u16, i32/u32,
i64/u64, and v_cmp_class_*.

The result is a 64-bit lane mask written to the explicit destination (``vcc`` in e32, any SGPR pair
in e64); lanes inactive in EXEC (or disabled by DPP) give 0. v_cmpx_* on gfx9 write the same mask to
EXEC as well (LLVM: ``v_cmpx_eq_u32_e64 s[0:1], v0, v1``). Float predicates follow the ISA guide:
ordered ones (lt, eq, le, gt, lg, ge, o) are false on NaN, the n* ones and u are true on NaN.
"""
from __future__ import annotations

import numpy as np

from . import denorm
from .dpp import dpp_of, src_reader
from .operand_io import GroupUnsupported, alu, group_mask_setter, group_mode, ops, scalar_setter
from .valu_int import lane_bits

FLOAT_PRED = {
    "f": lambda a, b: np.zeros(a.shape, bool),
    "lt": np.less, "eq": np.equal, "le": np.less_equal, "gt": np.greater,
    "lg": lambda a, b: (a < b) | (a > b), "ge": np.greater_equal,
    "o": lambda a, b: ~(np.isnan(a) | np.isnan(b)), "u": lambda a, b: np.isnan(a) | np.isnan(b),
    "nge": lambda a, b: ~(a >= b), "nlg": lambda a, b: ~((a < b) | (a > b)),
    "ngt": lambda a, b: ~(a > b), "nle": lambda a, b: ~(a <= b), "neq": lambda a, b: ~(a == b),
    "nlt": lambda a, b: ~(a < b), "tru": lambda a, b: np.ones(a.shape, bool),
}
INT_PRED = {
    "f": FLOAT_PRED["f"], "lt": np.less, "eq": np.equal, "le": np.less_equal, "gt": np.greater,
    "ne": np.not_equal, "ge": np.greater_equal, "t": FLOAT_PRED["tru"],
}
FLOAT_TYPES = ("f16", "f32", "f64")
INT_TYPES = ("i16", "u16", "i32", "u32", "i64", "u64")


def _class(a, mask):
    """v_cmp_class: bit k of S1 tests class k of S0 (ISA guide V_CMP_CLASS_F32):
    0 sNaN, 1 qNaN, 2 -inf, 3 -normal, 4 -denormal, 5 -0, 6 +0, 7 +denormal, 8 +normal, 9 +inf."""
    neg = np.signbit(a)
    nan = np.isnan(a)
    bits = a.view({2: np.uint16, 4: np.uint32, 8: np.uint64}[a.dtype.itemsize])
    quiet_bit = {2: 9, 4: 22, 8: 51}[a.dtype.itemsize]
    quiet = ((bits >> bits.dtype.type(quiet_bit)) & bits.dtype.type(1)).astype(bool)
    inf = np.isinf(a)
    zero = a == 0
    denorm = (~zero) & np.isfinite(a) & (np.abs(a) < np.finfo(a.dtype).tiny)
    normal = np.isfinite(a) & ~zero & ~denorm
    classes = [nan & ~quiet, nan & quiet, inf & neg, normal & neg, denorm & neg, zero & neg,
               zero & ~neg, denorm & ~neg, normal & ~neg, inf & ~neg]
    out = np.zeros(a.shape, bool)
    m = mask.astype(np.uint32)
    for k, c in enumerate(classes):
        out |= c & ((m >> np.uint32(k)) & np.uint32(1)).astype(bool)
    return out


def _flushing(reader, typ: str, op: str):
    """``reader`` with its value flushed per the wave's (or group's) MODE (isa.emu.denorm)."""
    if typ not in FLOAT_TYPES or op in denorm.NEVER_FLUSH_SRC:
        return reader
    default = denorm.DEFAULT_MODE

    def read(w):
        v, mk = reader(w)
        return (v if w.fp_mode == default else denorm.flush_src(w, v, typ, op)), mk
    return read


def _bind_cmp(pred, types: tuple[str, str], cmpx: bool):
    def bind(ins):
        sd = ops(ins, 3)[0]
        dpp = dpp_of(ins)
        ra = src_reader(ins, 1, 0, types[0], dpp)
        rb = src_reader(ins, 2, 1, types[1], dpp)
        if types[0] in FLOAT_TYPES:      # the sources as read under MODE (isa.emu.denorm)
            ra, rb = _flushing(ra, types[0], ins.op), _flushing(rb, types[1], ins.op)
        if group_mode():
            if cmpx:
                raise GroupUnsupported(f"{ins}: v_cmpx writes each wave's EXEC")
            gput = group_mask_setter(sd)

            def run_group(m, g):
                a, _ = ra(g)
                b, _ = rb(g)
                gput(g, np.broadcast_to(pred(a, b), g.exec_mask().shape) & g.exec_mask())
            return run_group
        put = scalar_setter(sd, 2)

        def run(m, w):
            a, mk = ra(w)
            b, _ = rb(w)
            lanes = w.exec_mask() if mk is None else mk
            val = lane_bits(pred(a, b) & lanes)
            put(w, val)
            if cmpx:
                w.set_exec(val)
        return run
    return bind


def _register() -> None:
    for cmpx in (False, True):
        base = "v_cmpx_" if cmpx else "v_cmp_"
        for t in FLOAT_TYPES:
            for name, f in FLOAT_PRED.items():
                alu(f"{base}{name}_{t}")(_bind_cmp(f, (t, t), cmpx))
            alu(f"{base}class_{t}")(_bind_cmp(_class, (t, "u32"), cmpx))
        for t in INT_TYPES:
            for name, f in INT_PRED.items():
                alu(f"{base}{name}_{t}")(_bind_cmp(f, (t, t), cmpx))


_register()
