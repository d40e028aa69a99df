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
  when more than a quarter are flagged (f16 on normal data: T = 4, ~3/4 of the groups). On all
  of them, f16 x f16 runs in float32 (``_truncated_sums32``: the sum of the truncated products
  is the scaled value sum less the float32 sum of the products' fractional parts, rounded to the
  integer it must be).
fdpa2 floors each half's sum to units 2**(max(E0, E1) - 24), as the model.
Stage 2 (the accumulator; model: E2 = max(E, e_c), S floored to units 2**(E2-31), C to
2**(E2-24), added exactly, rounded once to f32): where e_c lies in [E-1, E+7] both floors are
exact (S is on the grid 2**(E-24), C on 2**(e_c-23)), so the result is the float64 sum S + C
(exact: grids >= 2**(E-24), magnitude < 2**(E+9)) cast once to f32; the other outputs take the
model's formula with both floors on one grid (``_accumulate_full``), gathered or all at once.
Temporaries are reused scratch arrays (isa.emu.scratch): fresh ones cost page faults.
The fast path only answers when the model would take its plain branch: every A/B value finite,
no product that could reach 2**128 (E < 126 when the formats allow such products), and every
result finite (a non-finite C propagates to the result). Otherwise it returns None and the call
goes to the model (``isa.emu.mfma``) unchanged, so NaN/inf/overflow semantics are the model's
by construction. tests/emu/test_mfma_fast_exact.py (hypothesis: cancellation, exponent spreads,
subnormals, signed zeros, C on both sides of the window, specials, every fix-up route) and
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
from .scratch import buf

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
    f32_exact: bool         # f16 x f16: every product and its scaled truncation exact in float32
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
             two_halves=two, maybe_big=ma + mb + 2 > 127, f32_exact=(fa, fb) == ("f16", "f16"),
             groups=gc, m=info.m, n=info.n,
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
    [..., blocks, Gc, H, G, N] and C bits, or None (the model answers). See the module doc.
    Temporaries live in reused scratch arrays (isa.emu.scratch); the result is a fresh array."""
    lead = ca.shape[:-2]
    out_sh = lead + (ca.shape[-2], cb.shape[-1])          # [..., blocks, Gc, H, M, N]
    # NaN/inf codes may make the BLAS raise "invalid" (quietly: those calls go to the model); an
    # overflow of r1 * r[2] is +inf: flagged, still exact
    with np.errstate(invalid="ignore", over="ignore"):
        # one matmul over the channels (value, 2 * 16**e, 16**-e): [3, ..., Gc, H, M, N]
        va = np.take(p.ta, ca, axis=1, out=buf("mf.va", (3,) + ca.shape, _F64), mode="clip")
        vb = np.take(p.tb, cb, axis=1, out=buf("mf.vb", (3,) + cb.shape, _F64), mode="clip")
        r = np.matmul(va, vb, out=buf("mf.r", (3,) + out_sh, _F64))
        r1 = r[1]
        # E + 256 per (sub)group: r1 lies in [2**(4E+1), 2**(4E+4) * (1 + 2**-50)], so its biased
        # binary exponent is 1024 + 4E + j, j in 0..3. NaN/inf inputs make r1 +inf (511) or a NaN
        # (511, or -2 if the BLAS gave it the sign bit); either way the group's value sum is NaN
        # (NaN/inf codes have the value NaN in the tables), so its result is NaN and the final
        # isfinite test sends the call to the model. Every table index stays in range meanwhile.
        # (the int64 bits >> 54 as the high int32 word >> 22: int32 halves the later passes)
        eo = buf("mf.eo", out_sh, _I32)
        if _LE:
            np.right_shift(r1.view(np.int32)[..., 1::2], 22, out=eo)
        else:
            eo[...] = (r1.view(np.int64) >> 54).astype(np.int32)
        emax = int(eo.max()) - _EO
        if emax >= 255 or (p.maybe_big and emax >= 126):
            return None                  # special inputs, or |product| < 2**(e+2) may reach 2**128
        sig = r[0]
        # groups where a product may be truncated: r1 * r[2] lies in [2 * 16**s, 128 * 16**s]
        # for the spread s = E - (smallest nonzero product exponent) (0 when no product is
        # nonzero), so below 2 * 16**(T + 1) the spread is at most T and every product is exact
        # on the grid 2**(E-24)
        flag = np.multiply(r1, r[2], out=buf("mf.fl", out_sh, _F64))
        flag = np.greater_equal(flag, p.flag_at, out=buf("mf.flag", out_sh, np.bool_))
    f = np.flatnonzero(flag)
    if f.size * _DENSE_AT > flag.size:
        sig = (_truncated_sums32_chunked(ca, cb, sig, eo) if p.f32_exact
               else _truncated_sums(p, ca, cb, eo))
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
    route = _ROUTE.get(id(p))
    if route is None:
        route = _ROUTE[id(p)] = [0]
    last = p.groups - 1
    for gi in range(p.groups):
        res = np.empty(cc.shape, np.float32) if gi == last else buf(f"mf.res{gi & 1}", cc.shape,
                                                                        np.float32)
        _accumulate(s[..., gi, :, :], ep[..., gi, :, :], cbits.view(np.float32), cbits,
                    p.two_halves, res, route)
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


def _truncated_sums32(ca, cb, x, eo):
    """``_truncated_sums`` for f16 x f16 in float32, from the matmul's value sums ``x``
    [..., Gc, H, M, N]. Each product of two f16 values (11-bit significands, exponents in
    [-24, 15]) is exact in float32, and so is its scaling by 2**(24-E) (E >= -28 for any nonzero
    product; a group of zero products has every product 0, so E is clamped there) to y_k, below
    2**26 in magnitude. The truncated sum is sum_k trunc(y_k) = X - sum_k frac(y_k) with X the
    scaled value sum: each frac(y_k) = y_k - trunc(y_k) is exact and below 1 in magnitude, so the
    float32 sum of the <= 8 of them is within 2**-20 of the true one, and X (the float64 matmul
    sum of <= 8 exact products, each below 2**26 units) within 2**-21: the integer is the nearest
    one to the computed X - F, exactly."""
    eoc = np.maximum(eo, _EO - 28)
    # 2**(24-E) as float32 bits: biased exponent 127 + 24 - (eoc - 256), in [103, 179]
    sc = ((407 - eoc) << 23).view(np.float32)             # [..., M, N]
    a32 = np.swapaxes(ca.view(np.float16), -1, -2).astype(np.float32)   # [..., G, M]
    b32 = cb.view(np.float16).astype(np.float32)                         # [..., G, N]
    g, m, n = a32.shape[-2], a32.shape[-1], b32.shape[-1]
    sh = sc.shape[:-2] + (g, m, n)
    y = np.multiply(a32[..., :, :, None], b32[..., :, None, :], out=buf("mf.y", sh, _F32))
    y *= sc[..., None, :, :]
    y -= np.trunc(y, out=buf("mf.yt", sh, _F32))          # frac(y_k), exact
    fr = np.matmul(_ONES32[g], y.reshape(sc.shape[:-2] + (g, m * n)),
                   out=buf("mf.fr", sc.shape[:-2] + (1, m * n), _F32)).reshape(sc.shape)
    t = x * sc
    t -= fr
    np.rint(t, out=t)
    # back to a value: 2**(E-24) as float64 bits (biased 1023 - 24 + eoc - 256)
    t *= ((eoc.astype(np.int64) + (1023 - 24 - _EO)) << 52).view(np.float64)
    return t


def _truncated_sums32_chunked(ca, cb, x, eo):
    """``_truncated_sums32`` over at most ``_CHUNK_WAVES`` waves at a time (the product arrays of a
    64-wave group outgrow the caches: 2 MB each for 32x32x8)."""
    w = ca.shape[0] if ca.ndim == 6 else 0          # [W, blocks, Gc, H, M, G] has a wave axis
    if w <= _CHUNK_WAVES:
        return _truncated_sums32(ca, cb, x, eo)
    return np.concatenate([_truncated_sums32(ca[i:i + _CHUNK_WAVES], cb[i:i + _CHUNK_WAVES],
                                             x[i:i + _CHUNK_WAVES], eo[i:i + _CHUNK_WAVES])
                           for i in range(0, w, _CHUNK_WAVES)])


_CHUNK_WAVES = 16


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


# The truncating stage 1 runs over the whole array once more than 1/_DENSE_AT of the groups need
# it, else on the gathered groups (tests set it to force either).
_DENSE_AT = 4
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
_ONES32 = {g: np.ones((1, g), np.float32) for g in range(1, _MAX_SUB + 1)}


def _accumulate(s, eo, c, cbits, two: bool, out=None, route=None) -> np.ndarray:
    """The model's stage 2 (isa.emu.mfma._accumulate) for one group; eo = E + 256, s the group sum
    (a value on the grid 2**(E-24), |s| < 2**(E+5)), c the accumulator (float32, bits ``cbits``);
    the f32 result goes to ``out`` (a new array when None). Where e_c lies in [E-1, E+7] both of
    the model's floors are exact (s is on the grid 2**(E-24), C on 2**(e_c-23)), so the result is
    the float64 sum s + c (exact: both on grids >= 2**(E-24), below 2**(E+9)) rounded once to f32;
    the other outputs take ``_accumulate_full``, gathered, or all of them when they are many.
    ``route``: a plan's one-element list: after a call where most outputs needed the full formula,
    the next ``_FULL_RUN`` calls go straight to it (speed only: both routes give the model's bits)."""
    if out is None:
        out = np.empty(s.shape, np.float32)
    sh = s.shape
    if route is not None and route[0]:
        # the last call of this MFMA went to the full formula: go straight there for a while
        # (accumulators far above the products, as late in a long K loop); speed only
        route[0] -= 1
        return _accumulate_full(s, eo, c, _top(cbits, buf), two, out)
    # e_c - E + 1 = (bc - 127) - (eo - 256) + 1 with bc C's biased exponent, in int32. A
    # zero/subnormal C (bc = 0, e_c = -126) reads as e_c = -127 here, one too low: so only
    # offsets 0..7 are taken as inside (the true offset is then 0..8)
    d = np.right_shift(cbits, _U23, out=buf("acc.d", sh, np.uint32))
    d &= 0xFF
    di = d.view(np.int32)
    np.subtract(di, eo, out=di)
    di += 130
    bad = np.flatnonzero(np.greater(d, _U7, out=buf("acc.bad", sh, np.bool_)))
    if bad.size * _DENSE_AT > d.size:
        if route is not None:
            route[0] = _FULL_RUN
        return _accumulate_full(s, eo, c, _top(cbits, buf), two, out)
    np.add(s, c, out=out, casting="same_kind")     # the float64 sum, rounded once to f32
    if bad.size:
        sf, ef, cf = s.reshape(-1), eo.reshape(-1), cbits.reshape(-1)   # copies only if strided
        cb = cf.take(bad)
        out.reshape(-1)[bad] = _accumulate_full(sf.take(bad), ef.take(bad), cb.view(np.float32),
                                                _top(cb, _fresh), two, None, _fresh)
    return out


def _top(cbits, buf):
    """C's top 9 bits (sign, biased exponent) as intp: the index of the 512-entry tables."""
    return np.right_shift(cbits, _U23, out=buf("acc.top", cbits.shape, np.intp))


def _accumulate_full(s, eo, c, top, two: bool, out=None, buf=buf) -> np.ndarray:
    """The model's stage 2 for every output (see ``_accumulate``; ``top``: C's bits >> 23, the
    index of the 512-entry tables). The model: E2 = max(E, e_c); s floored to
    units 2**(E2-31), C to units 2**(E2-24), the exact sum rounded once to f32. One of the two
    floors is always exact: for e_c >= E, C's (C is on its grid 2**(e_c-23)), and s's too when
    e_c <= E + 7; for e_c < E, s's (on 2**(E-24)). So both floor to the one grid 2**-k,
    k = min(31 - e_c, 24 - E): floor(s * 2**k) + floor(C * 2**k) (integers below 2**34: exact),
    divided by 2**k (exact), rounded once to f32 - the model's bits, with no case split.
    Exponents: e_c in [-126, 127] (zero/subnormal: -126), E in [-380, 254], so k in [-230, 157]
    and 2**k is a normal float64, built from its bits. ``buf``: where the temporaries come from
    (scratch arrays, or ``_fresh`` ones for a gathered subset, whose size changes every call)."""
    sh = s.shape
    # bits of 2**k: (1023 + k) << 52, 1023 + k = min(1023 + 31 - e_c, 1023 + 24 - (eo - 256))
    x = np.take(_K2C, top, out=buf("acc.x", sh, np.int64), mode="clip")
    y = np.subtract(1303, eo, out=buf("acc.y", sh, np.int64), dtype=np.int64)
    y <<= 52
    np.minimum(x, y, out=x)
    k2 = x.view(np.float64)
    a = np.multiply(s, k2, out=buf("acc.a", sh, _F64))
    np.floor(a, out=a)
    b = np.multiply(c, k2, out=buf("acc.b", sh, _F64))     # float32 * float64: exact
    np.floor(b, out=b)
    if two:
        # fdpa2 drops an accumulator with e_c < E2 - 25 (only possible when e_c < E):
        # e_c < E - 25  <=>  bc - 127 < eo - 256 - 25
        b[np.take(_BC130, top) + 24 < eo] = 0.0
    a += b
    a += 0.0                                 # the model's fixed-point sum has no sign: -0 -> +0
    a /= k2
    if out is None:
        return a.astype(np.float32)
    np.copyto(out, a, casting="same_kind")
    return out


def _top_table(f) -> np.ndarray:
    """t[i] = f(max(i & 0xFF, 1)) for i in [0, 512): indexed by an f32's bits >> 23 (sign and
    biased exponent), f of the biased exponent with zero/subnormal read as 1 (e_c = -126)."""
    i = np.arange(512)
    t = f(np.maximum(i & 0xFF, 1)).astype(np.int64)
    t.setflags(write=False)
    return t


_K2C = _top_table(lambda bc: (1181 - bc) << 52)              # bits of 2**(31 - e_c)
_BC130 = _top_table(lambda bc: bc + 130).astype(np.int32)     # bc + 130 (window test, drop rule)
_BC130.setflags(write=False)


def _fresh(role, shape, dtype):
    return np.empty(shape, dtype)


_U7 = np.uint32(7)
_U23 = np.uint32(23)
_FULL_RUN = 8
_ROUTE: dict = {}           # id(plan) -> [calls left that go straight to _accumulate_full]
_F64, _F32, _I32 = np.dtype(np.float64), np.dtype(np.float32), np.dtype(np.int32)
