"""Scalar ALU semantics (SOP1, SOP2, SOPK, SOPC): integer ops on SGPRs with SCC, EXEC and M0.

Semantics follow the AMD CDNA3 ISA guide's SOP* opcode descriptions. Each op is a pure function of
Python ints (sources, SCC) returning (result, new SCC or None); the binder resolves operands once.
Widths per op are (dst, src0, src1) in dwords. SCC results: logical ops ``result != 0``; add/sub
u32 carry/borrow; add/sub i32 signed overflow; min/max ``S0 was chosen`` (S0 < S1 / S0 > S1).
"""
from __future__ import annotations

from collections.abc import Callable
from itertools import repeat

from . import salu_group as grp
from .operand_io import (
    M32,
    M64,
    AluModifierError,
    alu,
    group_mode,
    ops,
    scalar_getter,
    scalar_setter,
)


def sext(value: int, bits: int) -> int:
    value &= (1 << bits) - 1
    return value - (1 << bits) if value >> (bits - 1) else value


def _ovf32(a: int, b: int, r: int) -> int:
    """Signed overflow of r = a + b (32-bit): operands agree in sign and the result does not."""
    return int(((a ^ r) & (b ^ r)) >> 31 & 1)


def _nz(d: int):
    return d, int(d != 0)


def _bfe(s0: int, s1: int, bits: int, signed: bool) -> int:
    off = s1 & (bits - 1)
    width = (s1 >> 16) & 0x7F
    if width == 0:
        return 0
    width = min(width, bits)
    val = (s0 >> off) & ((1 << width) - 1)
    if signed:
        val = sext(val, width) & ((1 << bits) - 1)
    return val


def _ff1(x: int, bits: int) -> int:
    return ((x & -x).bit_length() - 1) & M32 if x else M32


def _flbit(x: int, bits: int) -> int:
    return bits - x.bit_length() if x else M32


def _flbit_signed(x: int, bits: int) -> int:
    # leading bits equal to the sign bit, counted from the MSB; -1 for 0 and -1 (ISA guide S_FLBIT_I32)
    if x == 0 or x == (1 << bits) - 1:
        return M32
    if x >> (bits - 1):
        x = ~x & ((1 << bits) - 1)
    return bits - x.bit_length()


def _brev(x: int, bits: int) -> int:
    return int(format(x, f"0{bits}b")[::-1], 2)


# ----- SOP2 / SOPC: name -> (widths (d, s0, s1), fn(s0, s1, scc) -> (d, scc|None)) --------------------
def _sop2_table() -> dict[str, tuple[tuple[int, int, int], Callable]]:
    t: dict[str, tuple[tuple[int, int, int], Callable]] = {}
    w1, w2 = (1, 1, 1), (2, 2, 2)
    t["s_add_u32"] = (w1, lambda a, b, c: ((a + b) & M32, (a + b) >> 32))
    t["s_sub_u32"] = (w1, lambda a, b, c: ((a - b) & M32, int(b > a)))
    t["s_addc_u32"] = (w1, lambda a, b, c: ((a + b + c) & M32, (a + b + c) >> 32))
    t["s_subb_u32"] = (w1, lambda a, b, c: ((a - b - c) & M32, int(b + c > a)))
    t["s_add_i32"] = (w1, lambda a, b, c: ((a + b) & M32, _ovf32(a, b, (a + b) & M32)))
    t["s_sub_i32"] = (w1, lambda a, b, c: ((a - b) & M32, _ovf32(a, ~b & M32, (a - b) & M32)))
    t["s_min_i32"] = (w1, lambda a, b, c: (a, 1) if sext(a, 32) < sext(b, 32) else (b, 0))
    t["s_min_u32"] = (w1, lambda a, b, c: (a, 1) if a < b else (b, 0))
    t["s_max_i32"] = (w1, lambda a, b, c: (a, 1) if sext(a, 32) > sext(b, 32) else (b, 0))
    t["s_max_u32"] = (w1, lambda a, b, c: (a, 1) if a > b else (b, 0))
    t["s_cselect_b32"] = (w1, lambda a, b, c: (a if c else b, None))
    t["s_cselect_b64"] = (w2, lambda a, b, c: (a if c else b, None))
    for w, suf, mask in ((w1, "b32", M32), (w2, "b64", M64)):
        t[f"s_and_{suf}"] = (w, lambda a, b, c: _nz(a & b))
        t[f"s_or_{suf}"] = (w, lambda a, b, c: _nz(a | b))
        t[f"s_xor_{suf}"] = (w, lambda a, b, c: _nz(a ^ b))
        t[f"s_andn2_{suf}"] = (w, lambda a, b, c, m=mask: _nz(a & ~b & m))
        t[f"s_orn2_{suf}"] = (w, lambda a, b, c, m=mask: _nz((a | ~b) & m))
        t[f"s_nand_{suf}"] = (w, lambda a, b, c, m=mask: _nz(~(a & b) & m))
        t[f"s_nor_{suf}"] = (w, lambda a, b, c, m=mask: _nz(~(a | b) & m))
        t[f"s_xnor_{suf}"] = (w, lambda a, b, c, m=mask: _nz(~(a ^ b) & m))
    # shifts: amount is S1[4:0] (32-bit) or S1[5:0] (64-bit)
    t["s_lshl_b32"] = (w1, lambda a, b, c: _nz((a << (b & 31)) & M32))
    t["s_lshr_b32"] = (w1, lambda a, b, c: _nz(a >> (b & 31)))
    t["s_ashr_i32"] = (w1, lambda a, b, c: _nz((sext(a, 32) >> (b & 31)) & M32))
    t["s_lshl_b64"] = ((2, 2, 1), lambda a, b, c: _nz((a << (b & 63)) & M64))
    t["s_lshr_b64"] = ((2, 2, 1), lambda a, b, c: _nz(a >> (b & 63)))
    t["s_ashr_i64"] = ((2, 2, 1), lambda a, b, c: _nz((sext(a, 64) >> (b & 63)) & M64))
    t["s_bfm_b32"] = (w1, lambda a, b, c: ((((1 << (a & 31)) - 1) << (b & 31)) & M32, None))
    t["s_bfm_b64"] = ((2, 1, 1), lambda a, b, c: ((((1 << (a & 63)) - 1) << (b & 63)) & M64, None))
    t["s_mul_i32"] = (w1, lambda a, b, c: ((sext(a, 32) * sext(b, 32)) & M32, None))
    t["s_mul_hi_u32"] = (w1, lambda a, b, c: ((a * b) >> 32, None))
    t["s_mul_hi_i32"] = (w1, lambda a, b, c: (((sext(a, 32) * sext(b, 32)) >> 32) & M32, None))
    t["s_bfe_u32"] = (w1, lambda a, b, c: _nz(_bfe(a, b, 32, False)))
    t["s_bfe_i32"] = (w1, lambda a, b, c: _nz(_bfe(a, b, 32, True)))
    t["s_bfe_u64"] = ((2, 2, 1), lambda a, b, c: _nz(_bfe(a, b, 64, False)))
    t["s_bfe_i64"] = ((2, 2, 1), lambda a, b, c: _nz(_bfe(a, b, 64, True)))
    t["s_absdiff_i32"] = (w1, lambda a, b, c: _nz(abs(sext(a, 32) - sext(b, 32)) & M32))
    for n in (1, 2, 3, 4):
        t[f"s_lshl{n}_add_u32"] = (w1, lambda a, b, c, n=n: (((a << n) + b) & M32, int(((a << n) + b) >> 32 != 0)))
    t["s_pack_ll_b32_b16"] = (w1, lambda a, b, c: ((a & 0xFFFF) | ((b & 0xFFFF) << 16), None))
    t["s_pack_lh_b32_b16"] = (w1, lambda a, b, c: ((a & 0xFFFF) | (b & 0xFFFF0000), None))
    t["s_pack_hh_b32_b16"] = (w1, lambda a, b, c: ((a >> 16) | (b & 0xFFFF0000), None))
    return t


def _sopc_table() -> dict[str, tuple[tuple[int, int], Callable[[int, int], bool]]]:
    t: dict[str, tuple[tuple[int, int], Callable[[int, int], bool]]] = {}
    cmps = {"eq": lambda a, b: a == b, "lg": lambda a, b: a != b, "gt": lambda a, b: a > b,
            "ge": lambda a, b: a >= b, "lt": lambda a, b: a < b, "le": lambda a, b: a <= b}
    for cc, f in cmps.items():
        t[f"s_cmp_{cc}_u32"] = ((1, 1), f)
        t[f"s_cmp_{cc}_i32"] = ((1, 1), lambda a, b, f=f: f(sext(a, 32), sext(b, 32)))
    t["s_cmp_eq_u64"] = ((2, 2), cmps["eq"])
    t["s_cmp_lg_u64"] = ((2, 2), cmps["lg"])
    t["s_bitcmp0_b32"] = ((1, 1), lambda a, b: not (a >> (b & 31)) & 1)
    t["s_bitcmp1_b32"] = ((1, 1), lambda a, b: bool((a >> (b & 31)) & 1))
    t["s_bitcmp0_b64"] = ((2, 1), lambda a, b: not (a >> (b & 63)) & 1)
    t["s_bitcmp1_b64"] = ((2, 1), lambda a, b: bool((a >> (b & 63)) & 1))
    return t


SOP2 = _sop2_table()
_READS_SCC = ("s_addc_u32", "s_subb_u32", "s_cselect_b32", "s_cselect_b64")   # the others ignore c
SOPC = _sopc_table()
_SIGNED_SRC = ("_i32", "_i64")


def _typ(name: str, width: int) -> str:
    if width == 2:
        return "i64" if name.endswith("_i64") else "b64"
    return "b32"


def _bind_sop2(name: str):
    (wd, w0, w1), fn = SOP2[name]

    def bind(ins):
        d, s0, s1 = ops(ins, 3)
        if group_mode():
            return grp.either(grp.sop2(fn, grp.column_getter(s0, w0, _typ(name, w0)),
                                       grp.column_getter(s1, w1, _typ(name, w1)),
                                       grp.column_setter(d, wd), name in _READS_SCC),
                              grp._per_wave(bind, ins))
        g0, g1 = scalar_getter(s0, w0, _typ(name, w0)), scalar_getter(s1, w1, _typ(name, w1))
        put = scalar_setter(d, wd)

        def run(m, w):
            res, scc = fn(g0(w), g1(w), w.scc)
            put(w, res)
            if scc is not None:
                w.scc = scc
        return run
    return bind


def _bind_sopc(name: str):
    (w0, w1), fn = SOPC[name]

    def bind(ins):
        s0, s1 = ops(ins, 2)
        if group_mode():
            return grp.either(grp.sopc(fn, grp.column_getter(s0, w0), grp.column_getter(s1, w1)),
                              grp._per_wave(bind, ins))
        g0, g1 = scalar_getter(s0, w0), scalar_getter(s1, w1)

        def run(m, w):
            w.scc = int(bool(fn(g0(w), g1(w))))
        return run
    return bind


for _n in SOP2:
    alu(_n, group=True)(_bind_sop2(_n))
for _n in SOPC:
    alu(_n, group=True)(_bind_sopc(_n))


# ----- SOP1: name -> (widths (d, s0), fn(s0, scc, old_d) -> (d | None, scc | None)) ------------------
def _sop1_table() -> dict[str, tuple[tuple[int, int], Callable]]:
    t: dict[str, tuple[tuple[int, int], Callable]] = {}
    t["s_mov_b32"] = ((1, 1), lambda a, c, d: (a, None))
    t["s_mov_b64"] = ((2, 2), lambda a, c, d: (a, None))
    t["s_cmov_b32"] = ((1, 1), lambda a, c, d: (a if c else d, None))
    t["s_cmov_b64"] = ((2, 2), lambda a, c, d: (a if c else d, None))
    t["s_not_b32"] = ((1, 1), lambda a, c, d: _nz(~a & M32))
    t["s_not_b64"] = ((2, 2), lambda a, c, d: _nz(~a & M64))
    t["s_brev_b32"] = ((1, 1), lambda a, c, d: (_brev(a, 32), None))
    t["s_brev_b64"] = ((2, 2), lambda a, c, d: (_brev(a, 64), None))
    t["s_bcnt0_i32_b32"] = ((1, 1), lambda a, c, d: _nz(32 - a.bit_count()))
    t["s_bcnt0_i32_b64"] = ((1, 2), lambda a, c, d: _nz(64 - a.bit_count()))
    t["s_bcnt1_i32_b32"] = ((1, 1), lambda a, c, d: _nz(a.bit_count()))
    t["s_bcnt1_i32_b64"] = ((1, 2), lambda a, c, d: _nz(a.bit_count()))
    t["s_ff0_i32_b32"] = ((1, 1), lambda a, c, d: (_ff1(~a & M32, 32), None))
    t["s_ff0_i32_b64"] = ((1, 2), lambda a, c, d: (_ff1(~a & M64, 64), None))
    t["s_ff1_i32_b32"] = ((1, 1), lambda a, c, d: (_ff1(a, 32), None))
    t["s_ff1_i32_b64"] = ((1, 2), lambda a, c, d: (_ff1(a, 64), None))
    t["s_flbit_i32_b32"] = ((1, 1), lambda a, c, d: (_flbit(a, 32), None))
    t["s_flbit_i32_b64"] = ((1, 2), lambda a, c, d: (_flbit(a, 64), None))
    t["s_flbit_i32"] = ((1, 1), lambda a, c, d: (_flbit_signed(a, 32), None))
    t["s_flbit_i32_i64"] = ((1, 2), lambda a, c, d: (_flbit_signed(a, 64), None))
    t["s_sext_i32_i8"] = ((1, 1), lambda a, c, d: (sext(a, 8) & M32, None))
    t["s_sext_i32_i16"] = ((1, 1), lambda a, c, d: (sext(a, 16) & M32, None))
    t["s_bitset0_b32"] = ((1, 1), lambda a, c, d: (d & ~(1 << (a & 31)) & M32, None))
    t["s_bitset1_b32"] = ((1, 1), lambda a, c, d: (d | (1 << (a & 31)), None))
    t["s_bitset0_b64"] = ((2, 1), lambda a, c, d: (d & ~(1 << (a & 63)) & M64, None))
    t["s_bitset1_b64"] = ((2, 1), lambda a, c, d: (d | (1 << (a & 63)), None))
    t["s_abs_i32"] = ((1, 1), lambda a, c, d: _nz(abs(sext(a, 32)) & M32))
    return t


SOP1 = _sop1_table()
_READS_DST = ("s_cmov_b32", "s_cmov_b64", "s_bitset0_b32", "s_bitset1_b32", "s_bitset0_b64",
              "s_bitset1_b64")


def _bind_sop1(name: str):
    (wd, w0), fn = SOP1[name]
    reads_dst = name in _READS_DST

    def bind(ins):
        d, s0 = ops(ins, 2)
        if group_mode():
            if name in ("s_mov_b32", "s_mov_b64"):
                copy = grp.mov(d, s0, wd)
                if copy is not None:
                    return copy
            gd = grp.column_getter(d, wd) if reads_dst else (lambda g: repeat(0))
            return grp.either(grp.sop1(fn, grp.column_getter(s0, w0, _typ(name, w0)), gd,
                                       grp.column_setter(d, wd)), grp._per_wave(bind, ins))
        g0 = scalar_getter(s0, w0, _typ(name, w0))
        put = scalar_setter(d, wd)
        gd = scalar_getter(d, wd) if reads_dst else (lambda w: 0)

        def run(m, w):
            res, scc = fn(g0(w), w.scc, gd(w))
            put(w, res)
            if scc is not None:
                w.scc = scc
        return run
    return bind


for _n in SOP1:
    alu(_n, group=True)(_bind_sop1(_n))


# ----- s_*_saveexec_b64 / *_wrexec_b64 (SOP1; ISA guide: SCC = (EXEC != 0) after the update) ----------
SAVEEXEC = {
    "and": lambda s, e: s & e, "or": lambda s, e: s | e, "xor": lambda s, e: s ^ e,
    "andn2": lambda s, e: s & ~e, "orn2": lambda s, e: s | ~e, "nand": lambda s, e: ~(s & e),
    "nor": lambda s, e: ~(s | e), "xnor": lambda s, e: ~(s ^ e), "andn1": lambda s, e: ~s & e,
    "orn1": lambda s, e: ~s | e,
}


def _bind_saveexec(fn: Callable[[int, int], int], wrexec: bool):
    def bind(ins):
        d, s0 = ops(ins, 2)
        g0 = scalar_getter(s0, 2)
        put = scalar_setter(d, 2)

        def run(m, w):
            old = w.exec
            new = fn(g0(w), old) & M64
            w.set_exec(new)
            put(w, new if wrexec else old)
            w.scc = int(new != 0)
        return run
    return bind


for _k, _f in SAVEEXEC.items():
    alu(f"s_{_k}_saveexec_b64", group=True)(grp.also_for_groups(_bind_saveexec(_f, False)))
alu("s_andn1_wrexec_b64", group=True)(grp.also_for_groups(_bind_saveexec(SAVEEXEC["andn1"], True)))
alu("s_andn2_wrexec_b64", group=True)(grp.also_for_groups(_bind_saveexec(SAVEEXEC["andn2"], True)))


# ----- SOPK: simm16 is sign-extended (i32 forms) or zero-extended (u32 compares) ---------------------
def _simm16(ins, op, signed: bool) -> int:
    val = getattr(op, "value", None)
    if not isinstance(val, int) or not -(1 << 15) <= val < (1 << 16):
        raise AluModifierError(f"{ins}: SOPK immediate {op} is not a 16-bit integer")
    return sext(val, 16) & M32 if signed else val & 0xFFFF


@alu("s_movk_i32", group=True)
@grp.also_for_groups
def _movk(ins):
    d, k = ops(ins, 2)
    val, put = _simm16(ins, k, True), scalar_setter(d)
    return lambda m, w: put(w, val)


@alu("s_cmovk_i32", group=True)
@grp.also_for_groups
def _cmovk(ins):
    d, k = ops(ins, 2)
    val, put = _simm16(ins, k, True), scalar_setter(d)

    def run(m, w):
        if w.scc:
            put(w, val)
    return run


@alu("s_addk_i32", group=True)
@grp.also_for_groups
def _addk(ins):
    d, k = ops(ins, 2)
    val, get, put = _simm16(ins, k, True), scalar_getter(d), scalar_setter(d)

    def run(m, w):
        a = get(w)
        r = (a + val) & M32
        put(w, r)
        w.scc = _ovf32(a, val, r)
    return run


@alu("s_mulk_i32", group=True)
@grp.also_for_groups
def _mulk(ins):
    d, k = ops(ins, 2)
    val, get, put = sext(_simm16(ins, k, True), 32), scalar_getter(d), scalar_setter(d)
    return lambda m, w: put(w, (sext(get(w), 32) * val) & M32)


def _bind_cmpk(name: str):
    cc, signed = name[len("s_cmpk_"):-4], name.endswith("_i32")
    f = SOPC[f"s_cmp_{cc}_{'i32' if signed else 'u32'}"][1]

    def bind(ins):
        s0, k = ops(ins, 2)
        g0, val = scalar_getter(s0), _simm16(ins, k, signed)

        def run(m, w):
            w.scc = int(bool(f(g0(w), val)))
        return run
    return bind


for _cc in ("eq", "lg", "gt", "ge", "lt", "le"):
    for _t in ("i32", "u32"):
        alu(f"s_cmpk_{_cc}_{_t}", group=True)(grp.also_for_groups(_bind_cmpk(f"s_cmpk_{_cc}_{_t}")))
