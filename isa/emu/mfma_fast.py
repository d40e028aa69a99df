"""Fast exact path of the fused-dot MFMAs (fdpa: f16/bf16, fdpa2: fp8/bf8): same bits as the model
in ``isa.emu.mfma`` with far fewer NumPy passes.

What is precomputed once per (mnemonic, arch, cbsz, abid, blgp) (``plan``): one gather index per
operand straight from the raw 8/16-bit view of the registers to the [blocks, groups, halves,
k-in-group, rows] order the arithmetic wants (layout, BLGP lane swizzle and CBSZ/ABID block
broadcast folded in), the C/D element order, and per element format the decode tables (value,
2**(4*exponent)).

Arithmetic per call (the model's stage 1 and 2, cdna-facts 2.3, see isa.emu.mfma):
* The group's largest product exponent E = max_k (ea_k + eb_k) comes from one small matmul:
  sum_k 16**(ea_k + eb_k) lies in [16**E, 8 * 16**E * (1 + 2**-50)] for a group of <= 8 products,
  so its binary exponent divided by 4 (floor) is exactly E. Exponents lie in [-252, 254], so every
  term is a normal float64 (2**-1008 .. 2**1016) and the sum cannot overflow.
* Products (exact in float64: <= 2 * 11 significand bits) are scaled by 2**(24 - E), truncated
  and summed exactly (the sum of <= 8 integers below 2**26), as the model does.
* The accumulator step is the model's ``_accumulate``.
The fast path only answers when the model would take its plain branch: every A/B value finite
(a NaN/inf code weighs +inf in the exponent matmul, so its group shows E = 256), no product that
could reach 2**128 (E < 126 when the formats allow such products), and every result finite (a
non-finite C propagates to the result). Otherwise it returns None and the call goes to the model
(``isa.emu.mfma``) unchanged, so NaN/inf/overflow semantics are the model's by construction.
tests/emu/test_perf_mfma.py checks bit-equality with the model on hard random data;
tests/emu/test_mfma_numerics.py checks both against an independent scalar model.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import cache

import numpy as np

from isa.numerics import FORMAT_BITS, decode_table

from .mfma_plan import _blgp_src
from .mfma_plan import _plan as model_plan

_RAW = {8: np.uint8, 16: np.uint16}
_MAX_SUB = 8            # products fused per (sub)group that the 16**e trick is proven for


@dataclass(frozen=True)
class Plan:
    """Precomputed gathers and tables of one MFMA form (see module docstring)."""

    name: str
    bits: int               # 8 or 16 (A and B alike)
    raw: type               # NumPy raw element dtype of ``bits``
    need_a: int             # VGPRs of A (and B) the format uses
    idx_a: np.ndarray       # int64 [blocks, Gc, H, G, M] into the raw view of A's registers
    idx_b: np.ndarray       # int64 [blocks, Gc, H, G, N]
    cd_flat: np.ndarray     # int64 [blocks, M, N] into C/D registers (ravelled [cd_regs, 64])
    cd_regs: int
    va: np.ndarray          # float64 value per A code
    wa: np.ndarray          # float64 2**(4*exponent) per A code
    vb: np.ndarray
    wb: np.ndarray
    two_halves: bool
    maybe_big: bool         # can a product of finite values reach 2**128 with these formats?
    groups: int             # Gc
    m: int
    n: int
    blocks: int


@cache
def _tables(fmt: str) -> tuple[np.ndarray, np.ndarray, int]:
    vals, exps = decode_table(fmt)
    finite = np.isfinite(vals)
    # NaN/inf codes weigh +inf: any group holding one gets exponent 256 (see ``fdpa``)
    w = np.where(finite, np.ldexp(1.0, 4 * exps.astype(np.int64)), np.inf)
    w.setflags(write=False)
    return vals, w, int(exps[finite].max())


def _raw_index(flat: np.ndarray, kpl: int, bits: int, src_lane=None) -> np.ndarray:
    """Lane-element flat indices (lane * kpl + e) -> indices into the raw [regs, 64, 32/bits] view."""
    lane, e = np.divmod(flat, kpl)
    if src_lane is not None:
        lane = src_lane[lane]
    epr = 32 // bits
    return (e // epr) * 64 * epr + lane * epr + e % epr


def plan(name: str, arch: str, cbsz: int, abid: int, blgp: int) -> Plan | None:
    """The fast plan of an MFMA form, or None when the fast path does not cover it (f32, xf32,
    i8, 6/4-bit f8f6f4 formats, block-scaled forms, groups of more than 8 products per half)."""
    return _plan(name, arch, int(cbsz), int(abid), int(blgp))


@cache
def _plan(name: str, arch: str, cbsz: int, abid: int, blgp: int) -> Plan | None:
    info, lay, (fa, fb) = model_plan(name, arch, cbsz, abid, blgp)   # checks the modifiers
    if info.kind not in ("fdpa", "fdpa2") or info.scaled:
        return None
    if fa not in FORMAT_BITS or fb not in FORMAT_BITS:
        return None
    bits = FORMAT_BITS[fa]
    if bits not in _RAW or FORMAT_BITS[fb] != bits:
        return None
    two = info.kind == "fdpa2"
    g = min(info.group, info.k)
    sub = g // 2 if two else g
    if sub > _MAX_SUB or info.k % g or (two and g % 2):
        return None
    kpl = info.k_per_lane
    a_flat = lay.a_flat                                 # [blocks, M, K]
    if cbsz:
        blk = np.arange(info.blocks)
        a_flat = a_flat[(blk >> cbsz << cbsz) + abid]
    b_flat = lay.b_flat                                 # [blocks, K, N]
    src = _blgp_src(blgp) if (blgp and info.blgp_ok) else None
    ia = _raw_index(a_flat, kpl, bits)                  # [blocks, M, K]
    ib = _raw_index(b_flat, kpl, bits, src)             # [blocks, K, N]
    gc = info.k // g
    h = 2 if two else 1
    # k = group * g + j * h + half  ->  [blocks, Gc, H, G', rows]
    ia = ia.transpose(0, 2, 1).reshape(info.blocks, gc, sub, h, info.m).transpose(0, 1, 3, 2, 4)
    ib = ib.reshape(info.blocks, gc, sub, h, info.n).transpose(0, 1, 3, 2, 4)
    va, wa, ma = _tables(fa)
    vb, wb, mb = _tables(fb)
    p = Plan(name=name, bits=bits, raw=_RAW[bits], need_a=kpl * bits // 32,
             idx_a=np.ascontiguousarray(ia), idx_b=np.ascontiguousarray(ib),
             cd_flat=lay.cd_flat, cd_regs=info.cd_regs, va=va, wa=wa, vb=vb, wb=wb,
             two_halves=two, maybe_big=ma + mb + 2 > 127, groups=gc, m=info.m, n=info.n,
             blocks=info.blocks)
    return p


def _raw(regs: np.ndarray, need: int, raw) -> np.ndarray:
    """[W, n, 64] uint32 registers -> [W, need * 64 * 32/bits] raw element codes (a view if possible)."""
    r = regs[:, :need]
    if not r.flags.c_contiguous:
        r = np.ascontiguousarray(r)
    return r.view(raw).reshape(r.shape[0], -1)


def fdpa(p: Plan, a: np.ndarray, b: np.ndarray, c: np.ndarray):
    """D registers [W, cd_regs, 64] for registers a, b [W, n, 64] and c [W, cd_regs, 64] (uint32),
    or None when the inputs need the model's special-value branch (the caller runs the model)."""
    w = c.shape[0]
    ca = _raw(a, p.need_a, p.raw)[:, p.idx_a]      # [W, blocks, Gc, H, G, M] codes
    cb = _raw(b, p.need_a, p.raw)[:, p.idx_b]
    cc = c.reshape(w, -1)[:, p.cd_flat]            # [W, blocks, M, N] uint32
    d = _compute(p, ca, cb, cc)
    if d is None:
        return None
    out = np.empty((w, p.cd_regs * 64), np.uint32)
    out[:, p.cd_flat] = d
    return out.reshape(w, p.cd_regs, 64)


def fdpa1(p: Plan, a: np.ndarray, b: np.ndarray, c: np.ndarray):
    """``fdpa`` for one wave: a, b uint32 [>= need_a, 64] register rows (row slices of a register
    file), c [cd_regs, 64]; returns D [cd_regs, 64] or None (the caller runs the model)."""
    a = a[:p.need_a]
    b = b[:p.need_a]
    if not (a.flags.c_contiguous and b.flags.c_contiguous and c.flags.c_contiguous):
        return None
    ca = a.view(p.raw).ravel()[p.idx_a]            # [blocks, Gc, H, G, M]
    cb = b.view(p.raw).ravel()[p.idx_b]
    cc = c.ravel()[p.cd_flat]                      # [blocks, M, N]
    d = _compute(p, ca, cb, cc)
    if d is None:
        return None
    out = np.empty(p.cd_regs * 64, np.uint32)
    out[p.cd_flat] = d
    return out.reshape(p.cd_regs, 64)


def _compute(p: Plan, ca, cb, cc):
    """D bits [..., blocks, M, N] from A/B codes [..., blocks, Gc, H, G, rows] and C bits, or None."""
    # largest product exponent per (sub)group [..., blocks, Gc, H, M, N]; 256 marks NaN/inf inputs
    sw = np.matmul(np.swapaxes(p.wa[ca], -1, -2), p.wb[cb])
    e = ((sw.view(np.int64) >> 52) - 1023) >> 2     # sw is a positive normal float64 or +inf
    emax = int(e.max())
    if emax >= 256 or (p.maybe_big and emax >= 126):
        return None                      # special inputs, or |product| < 2**(e+2) may reach 2**128
    prod = p.va[ca][..., :, :, None] * p.vb[cb][..., :, None, :]   # [..., Gc, H, G, M, N]
    prod *= _P2[(_OFF + 24) - e][..., None, :, :]
    np.trunc(prod, out=prod)
    # [..., Gc, H, M, N]; initial +0.0 makes an all-(-0) sum +0, so no stage-2 sum is -0
    s = prod.sum(axis=-3, initial=0.0)
    if p.two_halves:
        e0, e1 = e[..., 0, :, :], e[..., 1, :, :]
        ep = np.maximum(e0, e1)
        s = np.floor(s[..., 0, :, :] * _P2[e0 - ep + _OFF]) \
            + np.floor(s[..., 1, :, :] * _P2[e1 - ep + _OFF])
    else:
        s = s[..., 0, :, :]
        ep = e[..., 0, :, :]
    cbits = cc
    res = cc.view(np.float32)
    for gi in range(p.groups):
        res = _accumulate(s[..., gi, :, :], ep[..., gi, :, :], res, cbits, p.two_halves)
        cbits = res.view(np.uint32)
    # non-finite C (inf/NaN propagate through every step) or an overflowing sum: the model
    if not np.isfinite(res).all():
        return None
    return cbits


# 2.0**(k - _OFF) for k in [0, 2 * _OFF): exact powers of two by table lookup. Every exponent
# used here lies in [-372, 276] (operand exponents are in [-126, 127], a zero's is -126).
_OFF = 1000
_P2 = np.ldexp(1.0, np.arange(-_OFF, _OFF))
_P2.setflags(write=False)


def _wrapped(shift: int) -> np.ndarray:
    """t[x] = 2.0**(x + shift) for x in [-1024, 1023], laid out so a NumPy index x (negative ones
    count from the end) finds it: stage 2 indexes by exponents without offset arithmetic."""
    x = np.arange(2048)
    x = np.where(x < 1024, x, x - 2048)
    t = np.ldexp(1.0, np.clip(x + shift, -1074, 1023))
    t.setflags(write=False)
    return t


_P2_S = _wrapped(7)         # 2**(7 + ep - e2)
_P2_C = _wrapped(24)        # 2**(24 - e2), indexed by -e2
_P2_D = _wrapped(-31)       # 2**(e2 - 31)
# MMA-Sim exponent of an f32 by its top 9 bits (sign, biased exponent): zero/subnormal -> -126
_EC = (np.maximum(np.arange(512) & 0xFF, 1) - 127).astype(np.int64)


def _accumulate(s, ep, c, cbits, two: bool) -> np.ndarray:
    """The model's stage 2 (isa.emu.mfma._accumulate), same operations: E2 = max(E, e_c); S floored
    to units 2**(E2-31), C to units 2**(E2-24); the exact sum (< 2**40 units) rounded once to f32.
    Exponents here lie in [-380, 254], inside the tables' [-1024, 1023]."""
    ec = _EC[cbits >> 23]
    e2 = np.maximum(ep, ec)
    s31 = np.floor(s * _P2_S[ep - e2])
    c24 = np.floor(c * _P2_C[-e2])                   # float32 * float64: exact in float64
    if two:
        c24[ec < e2 - 25] = 0.0
    c24 *= 128.0
    # The model adds +0.0 here (its fixed-point sum has no sign). s is never -0 (stage 1 sums
    # from +0.0) and the floor of a negative nonzero is <= -1, so s31 is never -0 and neither is
    # c24 + s31: the +0.0 changes nothing.
    c24 += s31
    c24 *= _P2_D[e2]
    return c24.astype(np.float32)
