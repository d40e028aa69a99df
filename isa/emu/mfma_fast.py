"""Fast exact path of the fused-dot MFMAs (fdpa: f16/bf16, fdpa2: fp8/bf8): same bits as the model
in ``isa.emu.mfma``, with the products summed by one float64 matmul instead of elementwise.

Precomputed once per (mnemonic, arch, cbsz, abid, blgp) (``plan``): one gather index per operand
straight from the raw 8/16-bit view of the registers (A to [blocks, groups, halves, rows, k],
B to [blocks, groups, halves, k, rows]; layout, BLGP lane swizzle and CBSZ/ABID block broadcast
folded in; A's rows ordered so [blocks, M, N] is D's register order, C and D then views of the
registers, ``_register_rows``; else the C/D element order), and per element format a [3, codes] table: the value, 16**e
(A: 2 * 16**e) and 16**-e (0 for zero), e the MMA-Sim exponent (cdna-facts 2.3, isa.emu.mfma).

Stage 1 (per output and (sub)group of G <= 8 products; the model truncates each product to units
2**(E-24), E = max_k(ea_k + eb_k), and sums them exactly). One matmul over the three channels:
* value channel: the float64 sum of the products. Each product is exact in float64 (<= 2 * 11
  significand bits) and, when no product lies more than T = 24 - fa - fb binades below E (fa, fb
  the formats' fraction bits), every product is a multiple of 2**(E-24) below 2**(E+2), so every
  partial sum (< 2**(E+5)) is exact whatever order the matmul adds in: the sum IS the model's
  truncated sum, with no truncation to do.
* 2 * 16**e channel: sum_k 2 * 16**(ea_k + eb_k) lies in [2**(4E+1), 2**(4E+4) * (1 + 2**-50)],
  so the float64's bits >> 54 give E + 256 (exponents lie in [-252, 254]: every term is normal,
  the sum cannot overflow; a NaN/inf code weighs +inf and shows as 511).
* 16**-e channel: for the smallest nonzero product exponent Emin the product of the two channel
  sums lies in [2 * 16**(E-Emin), 128 * 16**(E-Emin)], so below 2 * 16**(T+1) the spread E-Emin
  is at most T. Groups at or above it are flagged (at most spread T flagged needlessly) and
  summed the model's way, truncating each product: on the gathered flagged groups, or on all
  when more than a quarter are flagged (f16 on normal data: T = 4, ~3/4 of the groups).
fdpa2 floors each half's sum to units 2**(max(E0, E1) - 24), as the model.
Stage 2 (the accumulator; model: E2 = max(E, e_c), S floored to units 2**(E2-31), C to
2**(E2-24), added exactly, rounded once to f32): where e_c lies in [E-1, E+7] both floors are
exact (S is on the grid 2**(E-24), C on 2**(e_c-23)), so the result is the float64 sum S + C
(exact: grids >= 2**(E-24), magnitude < 2**(E+9)) cast once to f32; the other outputs take the
model's formula (``_accumulate_full``), gathered or all at once as in stage 1.
The fast path only answers when the model would take its plain branch: every A/B value finite,
no product that could reach 2**128 (E < 126 when the formats allow such products), and every
result finite (a non-finite C propagates to the result). Otherwise it returns None and the call
goes to the model (``isa.emu.mfma``) unchanged, so NaN/inf/overflow semantics are the model's
by construction. tests/emu/test_mfma_fast_exact.py (hypothesis: cancellation, exponent spreads,
subnormals, signed zeros, C on both sides of the window, specials, both fix-up routes) and
tests/emu/test_perf_mfma.py check bit-equality with the model; tests/emu/test_mfma_numerics.py
checks the model against an independent scalar model.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import cache

import numpy as np

from isa.mfma_layout import ab_flat
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
    idx_a: np.ndarray       # int64 [blocks, Gc, H, M, G] into the raw view of A's registers
    idx_b: np.ndarray       # int64 [blocks, Gc, H, G, N]
    cd_flat: np.ndarray | None  # int64 [blocks, M, N] into C/D registers (ravelled [cd_regs, 64]);
                                # None: A's rows are permuted so [blocks, M, N] IS register order
    cd_inv: np.ndarray | None   # int64 [cd_regs * 64]: the inverse permutation of cd_flat (or None)
    cd_regs: int
    ta: np.ndarray          # float64 [3, codes] per A code: value, 16**e (inf: NaN/inf), 16**-e (0: zero/NaN/inf)
    tb: np.ndarray          # the same per B code
    spread: int             # T: products more than T exponents below E are truncated (24 - fa - fb)
    flag_at: float          # 2 * 16**(T + 1): groups at or above it take the truncating stage 1
    two_halves: bool
    maybe_big: bool         # can a product of finite values reach 2**128 with these formats?
    groups: int             # Gc
    m: int
    n: int
    blocks: int


@cache
def _tables(fmt: str) -> tuple[np.ndarray, int, int]:
    """([3, codes] channels value / 16**e / 16**-e, largest finite exponent, fraction bits)."""
    vals, exps = decode_table(fmt)
    finite = np.isfinite(vals)
    e4 = 4 * exps.astype(np.int64)
    # NaN/inf codes weigh +inf: any group holding one gets exponent 256 (see ``_compute``)
    w = np.where(finite, np.ldexp(1.0, e4), np.inf)
    # zero and NaN/inf codes weigh 0 in the smallest-exponent channel (only nonzero products count)
    wn = np.where(finite & (vals != 0), np.ldexp(1.0, -e4), 0.0)
    t = np.stack([np.where(finite, vals, np.nan), w, wn])   # (A's 16**e channel is doubled by _plan)
    t.setflags(write=False)
    # fraction bits f: every finite value is a multiple of 2**(e - f) (its ulp in MMA-Sim's
    # exponent convention, subnormals included); the largest f over the codes, found by test
    nz = finite & (vals != 0)
    f = next(k for k in range(64)
             if np.all(np.mod(np.ldexp(vals[nz], k - exps[nz].astype(np.int64)), 1.0) == 0))
    return t, int(exps[finite].max()), f


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
    a_flat, b_flat = ab_flat(name, bits, bits)          # [blocks, M, K], [blocks, K, N]
    if cbsz:
        blk = np.arange(info.blocks)
        a_flat = a_flat[(blk >> cbsz << cbsz) + abid]
    src = _blgp_src(blgp) if (blgp and info.blgp_ok) else None
    ia = _raw_index(a_flat, kpl, bits)                  # [blocks, M, K]
    ib = _raw_index(b_flat, kpl, bits, src)             # [blocks, K, N]
    gc = info.k // g
    h = 2 if two else 1
    # k = group * g + j * h + half  ->  A [blocks, Gc, H, rows, G'], B [blocks, Gc, H, G', rows]
    ia = ia.transpose(0, 2, 1).reshape(info.blocks, gc, sub, h, info.m).transpose(0, 1, 3, 4, 2)
    ib = ib.reshape(info.blocks, gc, sub, h, info.n).transpose(0, 1, 3, 2, 4)
    cd_flat = lay.cd_flat
    rows = _register_rows(cd_flat, info.n)
    if rows is not None:
        # output row r of block b computes the model's row rows[b, r]: D and C in register order
        ia = np.take_along_axis(ia, rows[:, None, None, :, None], axis=3)
        cd_flat = None
    ta, ma, fra = _tables(fa)
    ta = ta * np.array([[1.0], [2.0], [1.0]])           # A weighs 2 * 16**e (see _compute)
    ta.setflags(write=False)
    tb, mb, frb = _tables(fb)
    p = Plan(name=name, bits=bits, raw=_RAW[bits], need_a=kpl * bits // 32,
             idx_a=np.ascontiguousarray(ia), idx_b=np.ascontiguousarray(ib),
             cd_flat=cd_flat,
             cd_inv=None if cd_flat is None else _inverse(cd_flat, info.cd_regs * 64),
             cd_regs=info.cd_regs, ta=ta, tb=tb, spread=24 - fra - frb,
             flag_at=2.0 * 16.0 ** (25 - fra - frb),
             two_halves=two, maybe_big=ma + mb + 2 > 127, groups=gc, m=info.m, n=info.n,
             blocks=info.blocks)
    return p


def _register_rows(cd_flat: np.ndarray, n: int) -> np.ndarray | None:
    """Per block the row order [blocks, M] that puts D's elements in register order: when every
    output row (b, i) fills n consecutive register elements (cd_flat[b, i, j] = base + j) and the
    blocks follow each other, computing row rows[b, r] as output row r makes the matmul's
    [blocks, M, N] the ravelled [cd_regs, 64] registers (C read and D written as views, no
    permutation). None when the layout is not of that form (the 4x4 multi-block MFMAs)."""
    blocks, m, _ = cd_flat.shape
    base = cd_flat[:, :, 0]
    if not np.array_equal(cd_flat, base[:, :, None] + np.arange(n)):
        return None
    rows = np.argsort(base, axis=1)
    want = (np.arange(blocks)[:, None] * m + np.arange(m)) * n
    if not np.array_equal(np.take_along_axis(base, rows, axis=1), want):
        return None
    return rows


def _inverse(flat: np.ndarray, size: int) -> np.ndarray | None:
    """The inverse of the permutation ``flat`` of range(size) (D's element order -> register
    order), so D is written back by one ``np.take`` instead of a scatter; None when ``flat`` is
    not a permutation (then ``fdpa`` scatters)."""
    f = flat.ravel()
    if f.size != size or not np.array_equal(np.sort(f), np.arange(size)):
        return None
    inv = np.argsort(f)
    inv.setflags(write=False)
    return inv


def fdpa(p: Plan, a: np.ndarray, b: np.ndarray, c: np.ndarray):
    """D registers [W, cd_regs, 64] for registers a, b [W, n, 64] and c [W, cd_regs, 64] (uint32),
    or None when the inputs need the model's special-value branch (the caller runs the model)."""
    return fdpa_at(p, _rows(a), 0, _rows(b), 0, _rows(c), 0)


def _rows(regs: np.ndarray) -> np.ndarray:
    return regs if regs.flags.c_contiguous else np.ascontiguousarray(regs)


def fdpa_at(p: Plan, fa: np.ndarray, ia: int, fb: np.ndarray, ib: int, fc: np.ndarray, ic: int):
    """``fdpa`` reading A, B and C straight out of register files: ``fa``/``fb``/``fc`` C-contiguous
    uint32 [W, R, 64] (each wave's whole VGPR or AGPR file, or just the operand's rows), the
    operands starting at registers ``ia``/``ib``/``ic``. Nothing is copied but the elements the
    MFMA reads (np.take along an axis: the same elements as fancy indexing [:, idx], several times
    faster); the result is D [W, cd_regs, 64] or None (the model answers)."""
    w = fc.shape[0]
    epr = 32 // p.bits                         # raw elements per register and lane
    ra = fa.view(p.raw).reshape(w, -1)
    rb = fb.view(p.raw).reshape(w, -1)
    ca = np.take(ra, p.idx_a + ia * 64 * epr if ia else p.idx_a, axis=1)   # [W, blocks, Gc, H, M, G]
    cb = np.take(rb, p.idx_b + ib * 64 * epr if ib else p.idx_b, axis=1)
    if p.cd_flat is None:                      # register order: C is a view of its registers
        d = _compute(p, ca, cb, fc[:, ic:ic + p.cd_regs].reshape(w, p.blocks, p.m, p.n))
        return None if d is None else d.reshape(w, p.cd_regs, 64)
    cc = np.take(fc.reshape(w, -1), p.cd_flat + ic * 64 if ic else p.cd_flat, axis=1)  # [W, blocks, M, N]
    d = _compute(p, ca, cb, cc)
    if d is None:
        return None
    if p.cd_inv is not None:
        return np.take(d.reshape(w, -1), p.cd_inv, axis=1).reshape(w, p.cd_regs, 64)
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
    ca = np.take(a.view(p.raw).ravel(), p.idx_a)   # [blocks, Gc, H, M, G]
    cb = np.take(b.view(p.raw).ravel(), p.idx_b)
    if p.cd_flat is None:                          # register order (see _register_rows)
        d = _compute(p, ca, cb, c[:p.cd_regs].reshape(p.blocks, p.m, p.n))
        return None if d is None else d.reshape(p.cd_regs, 64)
    cc = np.take(c.ravel(), p.cd_flat)             # [blocks, M, N]
    d = _compute(p, ca, cb, cc)
    if d is None:
        return None
    if p.cd_inv is not None:
        return np.take(d.ravel(), p.cd_inv).reshape(p.cd_regs, 64)
    out = np.empty(p.cd_regs * 64, np.uint32)
    out[p.cd_flat] = d
    return out.reshape(p.cd_regs, 64)


def _compute(p: Plan, ca, cb, cc):
    """D bits [..., blocks, M, N] from A codes [..., blocks, Gc, H, M, G], B codes
    [..., blocks, Gc, H, G, N] and C bits, or None (the model answers). See the module doc."""
    # Where most groups hold a truncated product (f16, T = 4, on ordinary data) the matmul sum
    # is wasted: after two such calls in a row a plan goes straight to the truncating stage 1
    # (the 16**e channel alone gives E) for 16 calls, then looks again. Speed only: both
    # routes give the model's bits.
    mode = _MODE.get(id(p))
    if mode is None:
        mode = _MODE[id(p)] = [0, 0]
    dense = mode[0] >= 2 and mode[1] < 16
    # NaN/inf codes may make the BLAS raise "invalid" (quietly: those calls go to the model)
    with np.errstate(invalid="ignore", over="ignore"):
        if dense:
            mode[1] += 1
            r1 = np.matmul(p.ta[1][ca], p.tb[1][cb])
        else:
            # one matmul over the channels (value, 2 * 16**e, 16**-e): [3, ..., Gc, H, M, N]
            va, vb = np.take(p.ta, ca, axis=1), np.take(p.tb, cb, axis=1)
            r = np.matmul(va, vb)
            r1 = r[1]
    # E + 256 per (sub)group: r1 lies in [2**(4E+1), 2**(4E+4) * (1 + 2**-50)], so its biased
    # binary exponent is 1024 + 4E + j, j in 0..3. NaN/inf inputs make r1 +inf (511) or a NaN
    # (511, or -2 if the BLAS gave it the sign bit); either way the group's value sum is NaN
    # (NaN/inf codes have the value NaN in the tables), so its result is NaN and the final
    # isfinite test sends the call to the model. Every table index stays in range meanwhile.
    # (the int64 bits >> 54 as the high int32 word >> 22: int32 halves the later passes)
    eo = (r1.view(np.int32)[..., 1::2] if _LE else
          (r1.view(np.int64) >> 32).astype(np.int32)) >> 22
    emax = int(eo.max()) - _EO
    if emax >= 255 or (p.maybe_big and emax >= 126):
        return None                      # special inputs, or |product| < 2**(e+2) may reach 2**128
    if dense:
        sig = _truncated_sums(p, ca, cb, eo)
    else:
        mode[1] = 0
        sig = r[0]
        sig += 0.0                       # the model's fixed-point sum has no sign: -0 -> +0
        # groups where a product may be truncated: r1 * r[2] lies in [2 * 16**s, 128 * 16**s]
        # for the spread s = E - (smallest nonzero product exponent) (0 when no product is
        # nonzero), so below 2 * 16**(T + 1) the spread is at most T and every product is exact
        # on the grid 2**(E-24)
        with np.errstate(over="ignore"):   # an overflow is +inf: flagged, still exact
            flag = r1 * r[2] >= p.flag_at
        f = np.flatnonzero(flag)
        heavy = f.size * _DENSE_AT > flag.size
        mode[0] = mode[0] + 1 if heavy else 0
        if heavy:
            sig = _truncated_sums(p, ca, cb, eo)
        elif f.size:
            np.put(sig, f, _truncated_sums_at(va[0], vb[0], eo, f))
    if p.two_halves:
        e0, e1 = eo[..., 0, :, :], eo[..., 1, :, :]
        ep = np.maximum(e0, e1)
        # each half floored to units 2**(ep-24) (one of the two is already on that grid)
        g = _P2[(_OFF + 24 + _EO) - ep]
        s = np.floor(sig[..., 0, :, :] * g)
        s += np.floor(sig[..., 1, :, :] * g)
        s *= _P2[ep + (_OFF - 24 - _EO)]
    else:
        s = sig[..., 0, :, :]
        ep = eo[..., 0, :, :]
    cbits = cc
    res = cc.view(np.float32)
    for gi in range(p.groups):
        res = _accumulate(s[..., gi, :, :], ep[..., gi, :, :], res, cbits, p.two_halves)
        cbits = res.view(np.uint32)
    # non-finite C (inf/NaN propagate through every step) or an overflowing sum: the model
    if not np.isfinite(res).all():
        return None
    return cbits


def _truncated_sums(p: Plan, ca, cb, eo):
    """Every (sub)group's sum of products truncated to units 2**(E-24), as a value
    [..., Gc, H, M, N] (the model's stage 1, elementwise over all products; k outermost so the
    products and the sum run over contiguous [M, N] planes)."""
    va = np.swapaxes(p.ta[0][ca], -1, -2)                 # [..., G, M]
    prod = va[..., :, :, None] * p.tb[0][cb][..., :, None, :]   # [..., G, M, N]
    prod *= _P2[(_OFF + 24 + _EO) - eo][..., None, :, :]
    np.trunc(prod, out=prod)
    s = prod.sum(axis=-3, initial=0.0)
    s *= _P2[eo + (_OFF - 24 - _EO)]
    return s


def _truncated_sums_at(va, vb, eo, f):
    """``_truncated_sums`` at the flat indices ``f`` of the flagged (sub)groups only, from the
    operand values va [..., M, G] and vb [..., G, N] (the value channels of the matmul's inputs)."""
    m, g = va.shape[-2:]
    n = vb.shape[-1]
    ar = f // n                          # f = (lead * m + row) * n + col: row of va as [lead * m, g]
    bc = (ar // m) * n + (f - ar * n)    # row of vb transposed, viewed as [lead * n, g]
    prod = va.reshape(-1, g).take(ar, axis=0)                             # [F, G]
    prod *= np.swapaxes(vb, -1, -2).reshape(-1, g).take(bc, axis=0)
    ef = eo.reshape(-1).take(f)
    prod *= _P2.take((_OFF + 24 + _EO) - ef)[:, None]
    np.trunc(prod, out=prod)
    # integers below 2**26 each (units 2**(E-24)): any summation order is exact, so a matvec
    s = prod @ _ONES[g]
    s *= _P2.take(ef + (_OFF - 24 - _EO))
    return s


# Fix-ups (truncating stage 1, flooring stage 2) run over the whole array once more than
# 1/_DENSE_AT of it needs them, else on the gathered elements (tests set it to force either).
_DENSE_AT = 4
_MODE: dict = {}        # id(plan) -> [calls in a row that were mostly truncated, dense calls since]
# Stage 2 takes its exact shortcut from this many outputs per call on (below it the check and
# the gathered fix-up cost more NumPy calls than the model's formula on everything).
_LEAN_FROM = 4096
# Exponents E travel offset by _EO (``eo = E + 256``, straight from a float64's bits).
_EO = 256
_LE = np.little_endian
# 2.0**(k - _OFF) for k in [0, 2 * _OFF): exact powers of two by table lookup. Every exponent
# used here lies in [-372, 276] (operand exponents are in [-126, 127], a zero's is -126), so
# every index (offset ones included) lies inside the table.
_OFF = 1000
_P2 = np.ldexp(1.0, np.arange(-_OFF, _OFF))
_P2.setflags(write=False)
_ONES = {g: np.ones(g) for g in range(1, _MAX_SUB + 1)}


def _wrapped(shift: int) -> np.ndarray:
    """t[x] = 2.0**(x + shift) for x in [-1024, 1023], laid out so a NumPy index x (negative ones
    count from the end) finds it: stage 2 indexes by exponents without offset arithmetic."""
    x = np.arange(2048)
    x = np.where(x < 1024, x, x - 2048)
    t = np.ldexp(1.0, np.clip(x + shift, -1074, 1023))
    t.setflags(write=False)
    return t


_P2_S = _wrapped(31)        # 2**(31 - e2), indexed by -e2
_P2_C = _wrapped(24)        # 2**(24 - e2), indexed by -e2
_P2_D = _wrapped(-31)       # 2**(e2 - 31)
# MMA-Sim exponent of an f32 by its top 9 bits (sign, biased exponent): zero/subnormal -> -126;
# _ECX is it plus _EO + 1 (so that _ECX - eo = e_c - E + 1)
_EC = (np.maximum(np.arange(512) & 0xFF, 1) - 127).astype(np.int64)
_ECX = _EC + (_EO + 1)
_EC.setflags(write=False)
_ECX.setflags(write=False)


def _accumulate(s, eo, c, cbits, two: bool) -> np.ndarray:
    """The model's stage 2 (isa.emu.mfma._accumulate) for one group; eo = E + 256. Where e_c lies
    in [E-1, E+7] both of its floors are exact (s is on the grid 2**(E-24), C on 2**(e_c-23)), so
    the result is the float64 sum s + c (exact: both on grids >= 2**(E-24), below 2**(E+9))
    rounded once to f32; elsewhere ``_accumulate_full`` on the gathered outputs."""
    if s.size < _LEAN_FROM:
        return _accumulate_full(s, eo - _EO, c, np.take(_EC, cbits >> 23), two)
    # e_c - E + 1 = max(biased exponent of C, 1) - 127 - (eo - 256) + 1, in int32 (no table
    # lookup: NumPy's take casts a uint32 index to intp, a pass more than these)
    d = (cbits >> 23).view(np.int32)
    d &= 0xFF
    np.maximum(d, 1, out=d)
    d += 130
    d -= eo                                          # |eo| < 2**10: exact in int32
    bad = np.flatnonzero(d.view(np.uint32) > 8)   # outside 0 <= e_c - E + 1 <= 8
    if bad.size * _DENSE_AT > d.size:
        return _accumulate_full(s, eo - _EO, c, np.take(_EC, cbits >> 23), two)
    res = np.add(s, c).astype(np.float32)
    if bad.size:
        sf, ef, cf = s.reshape(-1), eo.reshape(-1), c.reshape(-1)   # copies only if strided
        res.reshape(-1)[bad] = _accumulate_full(
            sf[bad], ef[bad] - _EO, cf[bad], np.take(_EC, cbits.reshape(-1)[bad] >> 23), two)
    return res


def _accumulate_full(s, ep, c, ec, two: bool) -> np.ndarray:
    """The model's stage 2 (isa.emu.mfma._accumulate): E2 = max(E, e_c); the group sum s (a value,
    on the grid 2**(E-24)) floored to units 2**(E2-31), C to units 2**(E2-24); the exact sum
    (< 2**40 units) rounded once to f32.
    Exponents here lie in [-380, 254], inside the tables' [-1024, 1023]."""
    e2 = np.maximum(ep, ec)
    s31 = np.floor(s * _P2_S[-e2])
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
