"""Integer and bitwise VALU semantics (VOP1/VOP2/VOP3 forms): moves, add/sub with carries, multiplies,
shifts, bitfield ops, byte permutes, min/max/med3, v_cndmask, v_swap and the AccVGPR moves.

Lanes are uint32 NumPy vectors; results written under EXEC (plus DPP/SDWA masks) by ``bind_vop``.
Shift amounts use the low 5 bits (32-bit) or 6 bits (64-bit) of the shift operand (ISA guide).
Carry/borrow outputs go to the explicit lane-mask operand (VCC in e32, any SGPR pair in e64), with
inactive lanes 0; carry inputs are read from the explicit mask operand.
"""
from __future__ import annotations

from functools import lru_cache

import numpy as np

from ..operands import Imm
from .dpp import bind_vop, dpp_of, plain_reader, reject_mods
from .operand_io import (
    AluOperandError,
    alu,
    group_mask_getter,
    group_mode,
    imm_for_type,
    ops,
    register,
    scalar_getter,
    scalar_setter,
    split64,
    vector_getter,
    vector_setter,
)
from .state import mask_to_bools

U32 = np.uint32
U64 = np.uint64
M32 = U32(0xFFFFFFFF)
_31, _63 = U32(31), U32(63)


def lane_bits(bools: np.ndarray) -> int:
    """64-bit lane mask (bit i = lane i) of a bool[64]."""
    return int.from_bytes(np.packbits(bools, bitorder="little").tobytes(), "little")


def mask_reader(getter):
    """``w -> bool[64]`` of a 64-bit lane-mask operand, re-expanded only when its value changes."""
    cache = [-1, None]

    def get(w):
        val = getter(w)
        if val != cache[0]:
            cache[0], cache[1] = val, mask_to_bools(val)
        return cache[1]
    return get


def i24(a):
    return (a << U32(8)).view(np.int32) >> np.int32(8)


def u24(a):
    return a & U32(0xFFFFFF)


def _sat_u32(x):
    return np.minimum(x, np.int64(0xFFFFFFFF)).clip(0).astype(U32)


def _sat_i32(x):
    return np.clip(x, -(1 << 31), (1 << 31) - 1).astype(np.int32)


def _bfe(a, off, width, signed):
    """V_BFE_U32/I32: (S0 >> S1[4:0]) & ((1 << S2[4:0]) - 1), the signed form shifting arithmetically and
    sign-extending from bit width-1; width 0 gives 0 (ISA guide)."""
    off = off & _31
    width = width & _31
    if signed:
        x = a.view(np.int32) >> off.astype(np.int32)
        up = ((U32(32) - width) & _31).astype(np.int32)
        val = (x << up) >> up
        return np.where(width == 0, 0, val).astype(np.int32)
    val = (a >> off) & ((U64(1) << width.astype(U64)) - U64(1)).astype(U32)
    return np.where(width == 0, U32(0), val)


_PERM_BYTES = np.zeros((64, 16), np.uint8)
_PERM_BYTES[:, 13:16] = 0xFF
_PERM_LANE = (np.arange(64, dtype=np.intp) * 16)[:, None]


def _perm(s0, s1, sel):
    """v_perm_b32 (ISA guide V_PERM_B32 byte_permute): each selector byte picks a byte of {S0, S1}
    (0-7, S1 = bytes 0-3), the sign of byte 1/3/5/7 replicated (8-11), 0x00 (12) or 0xFF (13-15).
    One flat gather from a [lane, 16 candidate bytes] table (any number of lanes: one wave's 64,
    or a group's [n_members, 64]). A selector that is one value in every lane (an SGPR or a
    constant) takes ``_perm_const``'s shifts instead."""
    sel = np.asarray(sel, U32)
    first = sel.flat[0] if sel.size else 0
    if sel.size and (sel == first).all():
        return _perm_const_of(int(first))(np.asarray(s0, U32), np.asarray(s1, U32), sel)
    s0, s1, sel = np.broadcast_arrays(np.asarray(s0, U32), np.asarray(s1, U32), sel)
    shape, n = s0.shape, s0.size
    if n == 64:
        data, lane = _PERM_BYTES.copy(), _PERM_LANE
    else:
        data = np.zeros((n, 16), np.uint8)
        data[:, 13:16] = 0xFF
        lane = (np.arange(n, dtype=np.intp) * 16)[:, None]
    data[:, 0:4] = np.ascontiguousarray(s1).view(np.uint8).reshape(n, 4)
    data[:, 4:8] = np.ascontiguousarray(s0).view(np.uint8).reshape(n, 4)
    data[:, 8:12] = data[:, 1:8:2].view(np.int8) >> 7          # 0xFF where the sign bit is set
    idx = np.minimum(np.ascontiguousarray(sel).view(np.uint8).reshape(n, 4), 15) + lane
    return data.ravel()[idx].view(U32)[:, 0].reshape(shape)


def _ffbh(a):
    # leading zeros from the MSB; -1 (0xffffffff) for 0
    n = np.where(a == 0, M32, U32(31) - np.floor(np.log2(np.maximum(a, 1).astype(np.float64))).astype(U32))
    return n.astype(U32)


def _ffbl(a):
    low = a & (~a + U32(1))
    return np.where(a == 0, M32, np.log2(np.maximum(low, 1).astype(np.float64)).astype(U32))


def _ffbh_i32(a):
    s = a.view(np.int32)
    x = np.where(s < 0, ~a, a)
    return np.where((a == 0) | (a == M32), M32, _ffbh(x))


def _bcnt(a, b):
    return np.bitwise_count(a).astype(U32) + b


def _med3(a, b, c):
    return np.maximum(np.minimum(a, b), np.minimum(np.maximum(a, b), c))


# name -> (src types, dst type, fn[, fn_clamp])
INT_OPS: dict[str, tuple] = {
    "v_mov_b32": (("b32",), "b32", lambda a: a),
    "v_mov_b64": (("b64",), "b64", lambda a: a),
    "v_not_b32": (("b32",), "b32", lambda a: ~a),
    "v_ffbh_u32": (("b32",), "b32", _ffbh),
    "v_ffbl_b32": (("b32",), "b32", _ffbl),
    "v_ffbh_i32": (("b32",), "b32", _ffbh_i32),
    "v_bcnt_u32_b32": (("b32", "b32"), "b32", _bcnt),
    "v_add_u32": (("u32", "u32"), "u32", lambda a, b: a + b,
                  lambda a, b: _sat_u32(a.astype(np.int64) + b)),
    "v_sub_u32": (("u32", "u32"), "u32", lambda a, b: a - b,
                  lambda a, b: _sat_u32(a.astype(np.int64) - b)),
    "v_subrev_u32": (("u32", "u32"), "u32", lambda a, b: b - a,
                     lambda a, b: _sat_u32(b.astype(np.int64) - a)),
    "v_add_i32": (("i32", "i32"), "i32", lambda a, b: a + b,
                  lambda a, b: _sat_i32(a.astype(np.int64) + b)),
    "v_sub_i32": (("i32", "i32"), "i32", lambda a, b: a - b,
                  lambda a, b: _sat_i32(a.astype(np.int64) - b)),
    "v_add3_u32": (("u32",) * 3, "u32", lambda a, b, c: a + b + c),
    "v_lshl_add_u32": (("u32",) * 3, "u32", lambda a, b, c: (a << (b & _31)) + c),
    "v_add_lshl_u32": (("u32",) * 3, "u32", lambda a, b, c: (a + b) << (c & _31)),
    "v_lshl_or_b32": (("b32",) * 3, "b32", lambda a, b, c: (a << (b & _31)) | c),
    "v_and_or_b32": (("b32",) * 3, "b32", lambda a, b, c: (a & b) | c),
    "v_or3_b32": (("b32",) * 3, "b32", lambda a, b, c: a | b | c),
    "v_xad_u32": (("u32",) * 3, "u32", lambda a, b, c: (a ^ b) + c),
    "v_mul_u32_u24": (("u32", "u32"), "u32", lambda a, b: u24(a) * u24(b)),
    "v_mul_hi_u32_u24": (("u32", "u32"), "u32",
                         lambda a, b: ((u24(a).astype(U64) * u24(b)) >> U64(32)).astype(U32)),
    "v_mul_i32_i24": (("u32", "u32"), "i32", lambda a, b: i24(a) * i24(b)),
    "v_mul_hi_i32_i24": (("u32", "u32"), "i32",
                         lambda a, b: ((i24(a).astype(np.int64) * i24(b)) >> 32).astype(np.int32)),
    "v_mad_u32_u24": (("u32",) * 3, "u32", lambda a, b, c: u24(a) * u24(b) + c),
    "v_mad_i32_i24": (("u32", "u32", "i32"), "i32", lambda a, b, c: i24(a) * i24(b) + c),
    "v_mul_lo_u32": (("u32", "u32"), "u32", lambda a, b: a * b),
    "v_mul_hi_u32": (("u32", "u32"), "u32", lambda a, b: ((a.astype(U64) * b) >> U64(32)).astype(U32)),
    "v_mul_hi_i32": (("i32", "i32"), "i32",
                     lambda a, b: ((a.astype(np.int64) * b) >> 32).astype(np.int32)),
    "v_lshlrev_b32": (("u32", "u32"), "u32", lambda a, b: b << (a & _31)),
    "v_lshrrev_b32": (("u32", "u32"), "u32", lambda a, b: b >> (a & _31)),
    "v_ashrrev_i32": (("u32", "i32"), "i32", lambda a, b: b >> (a & _31).astype(np.int32)),
    "v_lshlrev_b64": (("u32", "u64"), "u64", lambda a, b: b << (a & _63).astype(U64)),
    "v_lshrrev_b64": (("u32", "u64"), "u64", lambda a, b: b >> (a & _63).astype(U64)),
    "v_ashrrev_i64": (("u32", "i64"), "i64", lambda a, b: b >> (a & _63).astype(np.int64)),
    "v_lshl_add_u64": (("u64", "u32", "u64"), "u64", lambda a, b, c: (a << (b & U32(7)).astype(U64)) + c),
    "v_and_b32": (("b32", "b32"), "b32", lambda a, b: a & b),
    "v_or_b32": (("b32", "b32"), "b32", lambda a, b: a | b),
    "v_xor_b32": (("b32", "b32"), "b32", lambda a, b: a ^ b),
    "v_xnor_b32": (("b32", "b32"), "b32", lambda a, b: ~(a ^ b)),
    "v_bfe_u32": (("u32",) * 3, "u32", lambda a, b, c: _bfe(a, b, c, False)),
    "v_bfe_i32": (("u32",) * 3, "i32", lambda a, b, c: _bfe(a, b, c, True)),
    "v_bfi_b32": (("b32",) * 3, "b32", lambda a, b, c: (a & b) | (~a & c)),
    "v_bfm_b32": (("u32", "u32"), "u32",
                  lambda a, b: ((((U64(1) << (a & _31).astype(U64)) - U64(1)) << (b & _31).astype(U64))
                                & U64(0xFFFFFFFF)).astype(U32)),
    "v_alignbit_b32": (("u32",) * 3, "u32",
                       lambda a, b, c: (((a.astype(U64) << U64(32)) | b) >> (c & _31).astype(U64)).astype(U32)),
    "v_alignbyte_b32": (("u32",) * 3, "u32",
                        lambda a, b, c: (((a.astype(U64) << U64(32)) | b)
                                         >> (U64(8) * (c & U32(3)).astype(U64))).astype(U32)),
    "v_min_i32": (("i32", "i32"), "i32", np.minimum),
    "v_max_i32": (("i32", "i32"), "i32", np.maximum),
    "v_min_u32": (("u32", "u32"), "u32", np.minimum),
    "v_max_u32": (("u32", "u32"), "u32", np.maximum),
    "v_min3_i32": (("i32",) * 3, "i32", lambda a, b, c: np.minimum(np.minimum(a, b), c)),
    "v_max3_i32": (("i32",) * 3, "i32", lambda a, b, c: np.maximum(np.maximum(a, b), c)),
    "v_min3_u32": (("u32",) * 3, "u32", lambda a, b, c: np.minimum(np.minimum(a, b), c)),
    "v_max3_u32": (("u32",) * 3, "u32", lambda a, b, c: np.maximum(np.maximum(a, b), c)),
    "v_med3_i32": (("i32",) * 3, "i32", _med3),
    "v_med3_u32": (("u32",) * 3, "u32", _med3),
    "v_min_i16": (("i16", "i16"), "i16", np.minimum),
    "v_max_i16": (("i16", "i16"), "i16", np.maximum),
    "v_min_u16": (("u16", "u16"), "u16", np.minimum),
    "v_max_u16": (("u16", "u16"), "u16", np.maximum),
    "v_add_u16": (("u16", "u16"), "u16", lambda a, b: a + b),
    "v_sub_u16": (("u16", "u16"), "u16", lambda a, b: a - b),
    "v_subrev_u16": (("u16", "u16"), "u16", lambda a, b: b - a),
    "v_mul_lo_u16": (("u16", "u16"), "u16", lambda a, b: a * b),
    "v_lshlrev_b16": (("u16", "u16"), "u16", lambda a, b: b << (a & np.uint16(15))),
    "v_lshrrev_b16": (("u16", "u16"), "u16", lambda a, b: b >> (a & np.uint16(15))),
    "v_ashrrev_i16": (("u16", "i16"), "i16", lambda a, b: b >> (a & np.uint16(15)).astype(np.int16)),
    "v_mad_u16": (("u16",) * 3, "u16", lambda a, b, c: a * b + c),
    "v_mad_i16": (("i16",) * 3, "i16", lambda a, b, c: a * b + c),
    "v_add_i16": (("i16", "i16"), "i16", lambda a, b: a + b,
                  lambda a, b: np.clip(a.astype(np.int32) + b, -32768, 32767).astype(np.int16)),
    "v_sub_i16": (("i16", "i16"), "i16", lambda a, b: a - b,
                  lambda a, b: np.clip(a.astype(np.int32) - b, -32768, 32767).astype(np.int16)),
    "v_mad_i32_i16": (("i16", "i16", "i32"), "i32", lambda a, b, c: a.astype(np.int32) * b + c),
    "v_mad_u32_u16": (("u16", "u16", "u32"), "u32", lambda a, b, c: a.astype(U32) * b + c),
    "v_min3_i16": (("i16",) * 3, "i16", lambda a, b, c: np.minimum(np.minimum(a, b), c)),
    "v_max3_i16": (("i16",) * 3, "i16", lambda a, b, c: np.maximum(np.maximum(a, b), c)),
    "v_min3_u16": (("u16",) * 3, "u16", lambda a, b, c: np.minimum(np.minimum(a, b), c)),
    "v_max3_u16": (("u16",) * 3, "u16", lambda a, b, c: np.maximum(np.maximum(a, b), c)),
    "v_med3_i16": (("i16",) * 3, "i16", _med3),
    "v_med3_u16": (("u16",) * 3, "u16", _med3),
    "v_sad_u32": (("u32",) * 3, "u32", lambda a, b, c: np.where(a > b, a - b, b - a) + c),
    "v_sad_u16": (("u32",) * 3, "u32", lambda a, b, c: _sad(a, b, 16) + c),
    "v_sad_u8": (("u32",) * 3, "u32", lambda a, b, c: _sad(a, b, 8) + c),
    "v_sad_hi_u8": (("u32",) * 3, "u32", lambda a, b, c: (_sad(a, b, 8) << U32(16)) + c),
}


def _sad(a, b, bits):
    """Sum over the 8- or 16-bit fields of |a - b| (ISA guide V_SAD_U8 / V_SAD_U16)."""
    dt = np.uint8 if bits == 8 else np.uint16
    x = np.ascontiguousarray(a).view(dt).reshape(64, -1).astype(np.int32)
    y = np.ascontiguousarray(b).view(dt).reshape(64, -1).astype(np.int32)
    return np.abs(x - y).sum(axis=1).astype(U32)


def _bitop3(table: int):
    """v_bitop3_b32 (gfx950): result bit = table[(S0 bit << 2) | (S1 bit << 1) | S2 bit]."""
    def fn(a, b, c):
        out = np.zeros(64, U32)
        for idx in range(8):
            if (table >> idx) & 1:
                out |= (a if idx & 4 else ~a) & (b if idx & 2 else ~b) & (c if idx & 1 else ~c)
        return out
    return fn


@alu("v_bitop3_b32")
def _bind_bitop3(ins):
    table = ins.mod("bitop3", 0)
    if not isinstance(table, int) or not 0 <= table <= 0xFF:
        raise AluOperandError(f"{ins}: bitop3:{table!r} is not an 8-bit truth table")
    return bind_vop(ins, _bitop3(table), ("b32",) * 3, "b32")


def _bfrev(a):
    bits = np.unpackbits(np.ascontiguousarray(a).view(np.uint8).reshape(64, 4), axis=1, bitorder="little")
    return np.packbits(bits[:, ::-1], axis=1, bitorder="little").view(U32)[:, 0]


INT_OPS["v_bfrev_b32"] = (("b32",), "b32", _bfrev)


def _make_int(name):
    entry = INT_OPS[name]
    srcs, dst, fn = entry[:3]
    fn_clamp = entry[3] if len(entry) > 3 else None
    return lambda ins: bind_vop(ins, fn, srcs, dst, fn_clamp=fn_clamp)


register(INT_OPS, _make_int)
alu("v_accvgpr_read_b32", "v_accvgpr_write_b32", "v_accvgpr_mov_b32")(
    lambda ins: bind_vop(ins, lambda a: a, ("b32",), "b32"))


# ----- v_perm_b32: with a constant selector (LLVM's usual form) each result byte's source is known
# at bind time: bytes that move together from one source are one shift and mask, so a wave or a
# group computes D in a few whole-array ops (no gather) ---------------------------------------------
def _perm_const(selv: int):
    """``fn(s0, s1, sel)`` of v_perm_b32 for the constant selector ``selv`` (the ``_perm`` rules)."""
    terms: dict = {}                 # (source 0 = S1 / 1 = S0, right shift) -> result mask
    signs = []                       # (source, bit, result mask): 0xFF where the bit is set
    const = 0
    for i in range(4):
        b, mask = (selv >> (8 * i)) & 0xFF, 0xFF << (8 * i)
        if b >= 13:
            const |= mask
        elif 8 <= b <= 11:           # sign of byte 1 / 3 of S1 (8, 9), of S0 (10, 11)
            signs.append((b >= 10, 15 if b % 2 == 0 else 31, mask))
        elif b < 8:
            key = (b >> 2, 8 * (b & 3) - 8 * i)
            terms[key] = terms.get(key, 0) | mask
    plan = [(src, sh, U32(m)) for (src, sh), m in terms.items()]
    signs = [(src, np.int32(31 - bit), U32(m)) for src, bit, m in signs]
    const = U32(const)

    def fn(s0, s1, sel):
        srcs = (s1, s0)
        r = None
        for src, sh, m in plan:
            v = srcs[src]
            v = v >> U32(sh) if sh > 0 else (v << U32(-sh) if sh < 0 else v)
            v = v & m
            r = v if r is None else (r | v)
        for src, up, m in signs:
            v = ((srcs[src].view(np.int32) << up) >> 31).view(U32) & m
            r = v if r is None else (r | v)
        shape = np.broadcast_shapes(np.shape(s0), np.shape(s1))
        if r is None:
            return np.full(shape, const, U32)
        if const:
            r = r | const
        return r if r.shape == shape else np.broadcast_to(r, shape)
    return fn


@lru_cache(maxsize=256)
def _perm_const_of(selv: int):
    return _perm_const(selv)


@alu("v_perm_b32")
def _bind_perm(ins):
    sel = ops(ins, 4)[3]
    if isinstance(sel, Imm) and dpp_of(ins) is None and not ins.mods:
        return bind_vop(ins, _perm_const(imm_for_type(sel, "b32")), ("u32",) * 3, "u32")
    return bind_vop(ins, _perm, ("u32",) * 3, "u32")


# ----- v_cndmask_b32: D = mask[lane] ? S1 : S0 (e32: mask is VCC; e64: any SGPR pair) ---------------
@alu("v_cndmask_b32")
def _cndmask(ins):
    sm = ops(ins, 4)[3]
    typ = "f32" if (ins.mod("neg") or ins.mod("abs")) else "b32"  # float modifiers make it an f32 select
    get_mask = group_mask_getter(sm) if group_mode() else mask_reader(scalar_getter(sm, 2))

    mask_box = [None]

    def sel(a, b):
        return np.where(mask_box[0], b, a)
    inner = bind_vop(ins, sel, (typ, typ), typ)

    def run(m, w):
        mask_box[0] = get_mask(w)
        inner(m, w)
    return run


# ----- carry ops: (vdst, sdst, src0, src1[, carry-in mask]) -------------------------------------------
def _carry_op(kind: str, carry_in: bool):
    def bind(ins):
        n = 5 if carry_in else 4
        d, sd = ops(ins, n)[:2]
        reject_mods(ins)
        ga, gb = plain_reader(ins, 2, 0, "u32"), plain_reader(ins, 3, 1, "u32")
        gc = mask_reader(scalar_getter(ins.operands[4], 2)) if carry_in else None
        put, put_mask = vector_setter(d), scalar_setter(sd, 2)
        clamp = bool(ins.mod("clamp", False))
        sub = kind != "add"

        def run(m, w):
            a, b = ga(w), gb(w)
            if kind == "subrev":
                a, b = b, a
            r = a - b if sub else a + b
            out = (b > a) if sub else (r < a)       # borrow / carry of the first step
            if gc is not None:
                c = gc(w)
                r2 = r - c if sub else r + c
                out = out | ((r < c) if sub else (r2 < r))
                r = r2
            ex = w.exec_mask()
            if clamp:
                r = np.where(out, U32(0) if sub else M32, r)
            put(w, r, ex)
            put_mask(w, lane_bits(out & ex))
        return run
    return bind


for _nm, _k, _ci in (("v_add_co_u32", "add", False), ("v_addc_co_u32", "add", True),
                     ("v_sub_co_u32", "sub", False), ("v_subb_co_u32", "sub", True),
                     ("v_subrev_co_u32", "subrev", False), ("v_subbrev_co_u32", "subrev", True)):
    alu(_nm)(_carry_op(_k, _ci))


# ----- v_mad_u64_u32 / v_mad_i64_i32 (VOP3b): D64 = S0 * S1 + S2_64, SDST = carry/overflow ---------
@alu("v_mad_u64_u32", "v_mad_i64_i32")
def _mad64(ins):
    d, sd = ops(ins, 5)[:2]
    reject_mods(ins, clamp=True)
    signed = ins.op == "v_mad_i64_i32"
    t = "i32" if signed else "u32"
    ga, gb = plain_reader(ins, 2, 0, t), plain_reader(ins, 3, 1, t)
    gc = plain_reader(ins, 4, 2, "i64" if signed else "u64")
    put, put_mask = vector_setter(d, 2), scalar_setter(sd, 2)

    def run(m, w):
        ex = w.exec_mask()
        if signed:
            p = ga(w).astype(np.int64) * gb(w).astype(np.int64)
            c = gc(w)
            r = p + c
            carry = ((p ^ r) & (c ^ r)) < 0
            r = r.view(U64)
        else:
            p = ga(w).astype(U64) * gb(w).astype(U64)
            r = p + gc(w)
            carry = r < p
        put(w, split64(r), ex)
        put_mask(w, lane_bits(carry & ex))
    return run


# ----- v_swap_b32: exchange two VGPRs in active lanes --------------------------------------------------
@alu("v_swap_b32")
def _swap(ins):
    d, s = ops(ins, 2)
    reject_mods(ins)
    gd, gs = vector_getter(d), vector_getter(s)
    pd, ps = vector_setter(d), vector_setter(s)

    def run(m, w):
        a, b = gd(w).copy(), gs(w).copy()
        ex = w.exec_mask()
        pd(w, b, ex)
        ps(w, a, ex)
    return run
