"""MFMA semantics: raw A/B/C registers -> D registers, bit-faithful to the CDNA3 arithmetic model.

Arithmetic (cdna-facts 2.3), as microsoft/MMA-Sim v1.0 (mmasim/simulator/amd.py and
arithmetic.py@c785138) models CDNA3; my own vectorised implementation of that model:

* f16/bf16 ("fdpa", groups of G = min(8, K) consecutive k) and xf32 (inputs truncated to tf32,
  G = 4). Per output element and group: if the float64 sum of the products and the accumulator
  is NaN/inf, the result is that sum rounded to f32; else if a product is >= 2**128 in magnitude
  the result is +-inf (NaN if both signs). Otherwise with operand exponents e (normal: unbiased,
  subnormal: format minimum, zero: -126) each exact product is truncated toward zero to 24
  fractional bits below the group's largest product exponent E and summed exactly; then with
  E2 = max(E, e_c) the sum is floored to 31 and the accumulator to 24 fractional bits below E2,
  both are added exactly and rounded once to f32 (RNE). That rounded value is the accumulator of
  the next group.
* fp8/bf8 ("fdpa2", G = 16): the products at even and odd k of the group are fused separately
  as above, each half-sum floored to 24 fractional bits below the larger of the two E, added; then
  the accumulator step as above except that an accumulator with e_c < E2 - 25 is dropped.
* f32 ("fma"): per output, a chain of IEEE fused multiply-adds over k in order.
* i8 ("int"): exact integer dot product plus C, wrapping in int32.
Cross-checked bit for bit against MMA-Sim's own ``amd_fused_dot_rd_add``/``fma`` (run under a
NumPy stand-in for torch) on 10k sampled outputs of every f16/bf16/fp8/xf32/f32 shape, exponent
spreads up to 2**127, NaN/inf inputs included: no mismatch. The repository tests use an
independent scalar Fraction model (tests/emu/test_mfma_numerics.py).
Speed: ``mfma`` first tries ``isa.emu.mfma_fast`` (same bits, far fewer NumPy passes, for the
fdpa/fdpa2 forms with finite inputs); ``mfma_model`` is this module's model alone.
No denormal flushing. A zero result is +0 (the model's fixed-point sum has no sign). NaN results
are the canonical 0x7FC00000 (payload/sign not modelled).

Not from MMA-Sim (it has no CDNA4 model), so unverified: gfx950 x16/x32 f16/bf16 use the fdpa
rule with G = 8; gfx950 fp8/bf8 use the fdpa2 rule with OCP E4M3/E5M2 inputs; f8f6f4 uses fdpa2
with G = 16 for every format pair.

Modifiers: CBSZ/ABID broadcast A blocks and BLGP swizzles B lanes (CALC, see
``isa.mfma_shapes``); on f8f6f4, cbsz/blgp select the A/B formats (``F8F6F4_FORMATS``).

Block-scaled ``v_mfma_scale_f32_*_f8f6f4`` (gfx950): D = sum_k (A[i,k] * 2**(sa[i,k//32]-127)) *
(B[k,j] * 2**(sb[k//32,j]-127)) + C with E8M0 scales (OCP MX v1.0: value 2**(s-127), 0xFF NaN).
The scale of A[i, k] is byte op_sel[0] + 2*op_sel_hi[0] of lane i + M*(k//32)'s
scale VGPR (B[k, j]: op_sel[1], op_sel_hi[1], lane j + N*(k//32)): AMD CDNA4 ISA guide 7.2.1
(``mfma_plan.scale_bytes``/``scale_lanes``). That lane holds the data of its scale block for the
6- and 4-bit formats, not for fp8/bf8, whose lanes hold two runs of 16 K (ISA 7.1.5.1,
``isa.mfma_layout.ab_flat``). Arithmetic, assumed (no
public CDNA4 model; MMA-Sim's NVIDIA block-scale model, arithmetic.py
``nv_fused_dot_add_with_block_scale``, also applies the power-of-two scale to each 16-product
partial sum exactly): each product and its exponent are scaled exactly, then the fdpa2 rule runs
unchanged - the group of 16 products lies in one scale block, so this is the unscaled group times
2**(sa+sb-254), and a product reaching 2**128 after scaling gives +-inf as unscaled ones do. A NaN
scale (0xFF) makes every product of its block NaN, so the outputs that use it are NaN. The
unscaled f8f6f4 form equals the scaled one with every scale 127.
"""
from __future__ import annotations

import math

import numpy as np

from isa.mfma_layout import ab_flat, layout, regs_to_elems
from isa.mfma_shapes import MfmaOperandError, mfma_info
from isa.numerics import decode_table, f32_exponent, fma_f32

from .mfma_fast import fdpa as fast_fdpa
from .mfma_fast import fdpa1 as fast_fdpa1
from .mfma_fast import plan as fast_plan
from .mfma_plan import _bits, _blgp_src, _formats, _plan  # noqa: F401  (_formats: mfma_sparse)
from .mfma_plan import scale_bytes, scale_lanes

_TWO128 = float(2.0 ** 128)
_QNAN = np.uint32(0x7FC00000)
_CHUNK_PRODUCTS = 32768      # products per NumPy pass when many waves are batched
# 2**x for x in [-_P2OFF, _P2OFF): exact power-of-two scale factors, cheaper than np.ldexp.
_P2OFF = 1000
_POW2 = np.ldexp(1.0, np.arange(-_P2OFF, _P2OFF))


def _pow2(x: np.ndarray) -> np.ndarray:
    return _POW2[x + _P2OFF]


def decode_codes(name: str, arch: str, a, b, c, cbsz=0, abid=0, blgp=0):
    """Registers -> (A codes [W*blocks,M,K], B codes [W*blocks,K,N], C uint32 [W*blocks,M,N],
    fa, fb, W). Registers are [n, 64] (W = 1) or [W, n, 64] for W waves at once."""
    info, lay, (fa, fb) = _plan(name, arch, int(cbsz), int(abid), int(blgp))
    kpl = info.k_per_lane
    c = np.asarray(c, np.uint32)
    waves = c.shape[0] if c.ndim == 3 else 1
    if c.shape[-2:] != (info.cd_regs, 64) or c.ndim not in (2, 3):
        raise MfmaOperandError(f"{name}: C registers have shape {c.shape}, "
                               f"expected {(info.cd_regs, 64)} or (waves, {info.cd_regs}, 64)")
    out = []
    for what, regs, fmt in (("A", a, fa), ("B", b, fb)):
        regs = np.asarray(regs, np.uint32)
        need = kpl * _bits(fmt) // 32
        if regs.ndim != c.ndim or regs.shape[-1] != 64 or regs.shape[-2] < need \
                or (regs.ndim == 3 and regs.shape[0] != waves):
            raise MfmaOperandError(f"{name}: {what} registers have shape {regs.shape}, "
                                   f"need ({need}, 64) for format {fmt}"
                                   + (f" with {waves} waves" if c.ndim == 3 else ""))
        out.append(regs_to_elems(regs[..., :need, :], _bits(fmt), kpl).reshape(waves, -1))
    ea, eb = out
    if blgp and info.blgp_ok:
        eb = eb.reshape(waves, 64, kpl)[:, _blgp_src(blgp)].reshape(waves, -1)
    a_flat, b_flat = ab_flat(name, _bits(fa), _bits(fb))   # f8f6f4: per format (ISA 7.1.5.1)
    am = ea[:, a_flat]                              # [W, blocks, M, K]
    if cbsz:
        blk = np.arange(info.blocks)
        am = am[:, (blk >> cbsz << cbsz) + abid]    # CALC _get_cbsz_abid_transformed_block
    bm = eb[:, b_flat]
    cm = c.reshape(waves, -1)[:, lay.cd_flat]
    merge = (waves * info.blocks,)
    return (am.reshape(merge + am.shape[2:]), bm.reshape(merge + bm.shape[2:]),
            cm.reshape(merge + cm.shape[2:]), fa, fb, waves)


def decode_scales(name: str, arch: str, waves: int, scale_a=None, scale_b=None,
                  opsel_a=0, opsel_b=0):
    """E8M0 scale bytes per element of a block-scaled MFMA: (uint8 [W, M, K], uint8 [W, K, N]),
    or None for an MFMA without scales (which refuses scale operands)."""
    info = mfma_info(name, arch)
    ba = scale_bytes(info, scale_a, opsel_a, "A", waves)
    bb = scale_bytes(info, scale_b, opsel_b, "B", waves)
    if ba is None:
        return None
    la, lb = scale_lanes(name)
    return ba[:, la], bb[:, lb]


def _scaled(vals: np.ndarray, exps: np.ndarray, sbytes: np.ndarray):
    """Values and exponents times 2**(s - 127) exactly; scale 0xFF (NaN) makes the value NaN."""
    sh = sbytes.astype(np.int32) - 127
    with np.errstate(invalid="ignore"):
        v = np.where(sbytes == 255, np.nan, vals * _pow2(sh))
    return v, exps + sh


def _values(codes: np.ndarray, fmt: str) -> tuple[np.ndarray, np.ndarray]:
    """(float64 values, MMA-Sim exponents) of element codes in format ``fmt``."""
    if fmt in ("f32", "xf32"):
        bits = codes.view(np.uint32)
        if fmt == "xf32":
            bits = bits & np.uint32(0xFFFFE000)     # truncate to tf32 (MMA-Sim truncate_to_tf32)
        return bits.view(np.float32).astype(np.float64), f32_exponent(bits)
    vals, exps = decode_table(fmt)
    return vals[codes], exps[codes]


def _trunc_sum(p: np.ndarray, e: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Products truncated to 24 fractional bits below their max exponent, summed exactly.

    Products of a group lie along axis 1. Returns (sum in units of 2**(E-24), E)."""
    emax = e.max(axis=1)
    t = np.trunc(p * _pow2(24 - emax)[:, None])
    return t.sum(axis=1), emax


def _products_stage(p: np.ndarray, e: np.ndarray, two_halves: bool):
    """Stage 1 of every group at once (independent of the accumulator).

    p, e: [groups, G, blocks, M, N]. Returns (S in units of 2**(E-24), E), each [groups, ...]."""
    if not two_halves:
        return _trunc_sum(p, e)
    s0, e0 = _trunc_sum(p[:, 0::2], e[:, 0::2])
    s1, e1 = _trunc_sum(p[:, 1::2], e[:, 1::2])
    ep = np.maximum(e0, e1)
    return np.floor(s0 * _pow2(e0 - ep)) + np.floor(s1 * _pow2(e1 - ep)), ep


def _accumulate(s, ep, c, ec, two_halves: bool) -> np.ndarray:
    """Stage 2 of one group: add the accumulator c (exponents ec), round once to float32."""
    e2 = np.maximum(ep, ec)
    s31 = np.floor(s * _pow2(7 + ep - e2))               # units 2**(E2-31)
    c24 = np.floor(c * _pow2(24 - e2))                   # units 2**(E2-24)
    if two_halves:
        c24 = np.where(ec >= e2 - 25, c24, 0.0)
    total = s31 + c24 * 128.0 + 0.0                      # exact (< 2**40); +0.0 kills -0
    return (total * _pow2(e2 - 31)).astype(np.float32)


def _fdpa(info, am, bm, cbits, fa, fb, scales=None) -> np.ndarray:
    va, vb = _values(am, fa), _values(bm, fb)
    if scales is not None:
        va, vb = _scaled(*va, scales[0]), _scaled(*vb, scales[1])
    # k first: [K, blocks, M] and [K, blocks, N], so groups reduce over a leading axis (fast)
    av, ae = (np.ascontiguousarray(x.transpose(2, 0, 1)) for x in va)
    bv, be = (np.ascontiguousarray(x.transpose(1, 0, 2)) for x in vb)
    c = cbits.view(np.float32)
    g = min(info.group, info.k)
    two = info.kind == "fdpa2"
    grouped = (info.k // g, g, am.shape[0], info.m, info.n)
    with np.errstate(all="ignore"):
        # NaN/inf anywhere make these maxima non-finite; products >= 2**128 need big ones
        ma, mb = float(np.abs(av).max()), float(np.abs(bv).max())
        maybe_special = not (math.isfinite(ma) and math.isfinite(mb))
        maybe_big = maybe_special or ma * mb >= _TWO128
        p = (av[:, :, :, None] * bv[:, :, None, :]).reshape(grouped)
        e = (ae[:, :, :, None] + be[:, :, None, :]).reshape(grouped)
        s, ep = _products_stage(p, e, two)
        if maybe_big:
            pos = (p >= _TWO128).any(axis=1)
            neg = (p <= -_TWO128).any(axis=1)
        psum = p.sum(axis=1) if maybe_special or not np.isfinite(c).all() else None
        for gi in range(grouped[0]):
            c64 = c.astype(np.float64)
            res = _accumulate(s[gi], ep[gi], c64, f32_exponent(c.view(np.uint32)), two)
            if maybe_big:
                res = np.where(pos[gi] & neg[gi], np.float32(np.nan),
                               np.where(pos[gi], np.float32(np.inf),
                                        np.where(neg[gi], np.float32(-np.inf), res)))
            if psum is None and not np.isfinite(res).all():
                psum = p.sum(axis=1)
            if psum is not None:
                f64 = psum[gi] + c64
                res = np.where(np.isfinite(f64), res, f64.astype(np.float32))
            c = res
    bits = c.view(np.uint32)
    if maybe_big or psum is not None:             # only then can a NaN appear
        bits = bits.copy()
        bits[np.isnan(c)] = _QNAN
    return bits


def _fma_chain(info, am, bm, cbits) -> np.ndarray:
    av = am.view(np.float32)
    bv = bm.view(np.float32)
    acc = cbits.view(np.float32)
    for k in range(info.k):
        acc = fma_f32(av[:, :, k][:, :, None], bv[:, k, :][:, None, :], acc)
    bits = acc.view(np.uint32).copy()
    bits[np.isnan(acc)] = _QNAN
    return bits


def _int_dot(am, bm, cbits) -> np.ndarray:
    a = am.view(np.int8).astype(np.int64)
    b = bm.view(np.int8).astype(np.int64)
    d = np.matmul(a, b) + cbits.view(np.int32).astype(np.int64)
    return (d & 0xFFFFFFFF).astype(np.uint32)


def _scatter_d(name: str, d: np.ndarray, waves: int, batched: bool) -> np.ndarray:
    info = mfma_info(name)
    out = np.empty((waves, info.cd_regs * 64), np.uint32)
    out[:, layout(name).cd_flat.ravel()] = d.reshape(waves, -1)
    out = out.reshape(waves, info.cd_regs, 64)
    return out if batched else out[0]


def mfma(name: str, arch: str, a: np.ndarray, b: np.ndarray, c: np.ndarray,
         cbsz: int = 0, abid: int = 0, blgp: int = 0, scale_a=None, scale_b=None,
         opsel_a: int = 0, opsel_b: int = 0) -> np.ndarray:
    """D = A*B + C for MFMA ``name`` on ``arch``; raw uint32 registers in, uint32 D out.

    a, b: uint32[n, 64] with n >= the VGPRs the operand format needs (``operand_regs``);
    c: uint32[cd_regs, 64]; returns uint32[cd_regs, 64]. Several waves at once: a, b, c with a
    leading wave axis ([W, n, 64], [W, cd_regs, 64]) return [W, cd_regs, 64] (one NumPy pass).
    Block-scaled forms: scale_a/scale_b are the scale VGPRs (uint32 [64] or [W, 64]; None: every
    scale 1.0) and opsel_a/opsel_b the bytes they use (0..3); other MFMAs refuse them.
    f16/bf16/fp8/bf8 forms take the exact fast path of ``isa.emu.mfma_fast`` when it applies
    (same bits as ``mfma_model``)."""
    return _mfma(name, arch, a, b, c, cbsz, abid, blgp, True, (scale_a, scale_b, opsel_a, opsel_b))


def mfma_model(name: str, arch: str, a: np.ndarray, b: np.ndarray, c: np.ndarray,
               cbsz: int = 0, abid: int = 0, blgp: int = 0, scale_a=None, scale_b=None,
               opsel_a: int = 0, opsel_b: int = 0) -> np.ndarray:
    """``mfma`` without the fast path: the model itself (for equivalence tests)."""
    return _mfma(name, arch, a, b, c, cbsz, abid, blgp, False, (scale_a, scale_b, opsel_a, opsel_b))


def _fast_shapes_ok(fp, a, b, c) -> bool:
    """The register shapes the fast path takes (others go to the model, which reports errors)."""
    nd = c.ndim
    if nd not in (2, 3) or c.shape[-2:] != (fp.cd_regs, 64):
        return False
    for r in (a, b):
        if r.ndim != nd or r.shape[-1] != 64 or r.shape[-2] < fp.need_a \
                or (nd == 3 and r.shape[0] != c.shape[0]):
            return False
    return True


def _slice_scales(sc, i, j):
    """The scale operands of waves i..j (a [64] register is shared by every wave)."""
    sa, sb, oa, ob = sc
    cut = (lambda r: r if r is None or np.ndim(r) == 1 else r[i:j])
    return cut(sa), cut(sb), oa, ob


def _mfma(name, arch, a, b, c, cbsz, abid, blgp, fast: bool, sc=(None, None, 0, 0)) -> np.ndarray:
    info = mfma_info(name, arch)
    per_wave = info.blocks * info.m * info.n * info.k
    step = max(1, _CHUNK_PRODUCTS // per_wave)
    if np.ndim(c) == 3 and len(c) > step:
        # keep the [products] temporaries cache-sized: big batches run slower per wave (a form
        # with more products per wave than the chunk, 32x32x64 f8f6f4, goes one wave at a time)
        return np.concatenate([_mfma(name, arch, a[i:i + step], b[i:i + step], c[i:i + step],
                                     cbsz, abid, blgp, fast, _slice_scales(sc, i, i + step))
                               for i in range(0, len(c), step)])
    waves = len(c) if np.ndim(c) == 3 else 1
    scales = decode_scales(name, arch, waves, *sc)
    if fast and scales is None and info.kind in ("fdpa", "fdpa2"):
        fp = fast_plan(name, arch, cbsz, abid, blgp)
        if fp is not None:
            a, b, c = (np.asarray(x, np.uint32) for x in (a, b, c))
            if _fast_shapes_ok(fp, a, b, c):
                d = fast_fdpa1(fp, a, b, c) if c.ndim == 2 else fast_fdpa(fp, a, b, c)
                if d is not None:
                    return d
    am, bm, cbits, fa, fb, waves = decode_codes(name, arch, a, b, c, cbsz, abid, blgp)
    if info.kind == "int":
        d = _int_dot(am, bm, cbits)
    elif info.kind == "fma":
        d = _fma_chain(info, am, bm, cbits)
    else:
        d = _fdpa(info, am, bm, cbits, fa, fb, scales)
    return _scatter_d(name, d, waves, np.ndim(c) == 3)


def operand_values(name: str, arch: str, a, b, c, cbsz=0, abid=0, blgp=0, **scales):
    """float64 A [W*blocks,M,K], B [W*blocks,K,N], C [W*blocks,M,N] as the MFMA sees them (xf32
    truncated, BLGP/CBSZ applied, block scales multiplied in; ``scales``: scale_a, scale_b,
    opsel_a, opsel_b as for ``mfma``) - for references and tolerances in tests."""
    info = mfma_info(name, arch)
    am, bm, cbits, fa, fb, waves = decode_codes(name, arch, a, b, c, cbsz, abid, blgp)
    if info.kind == "int":
        return (am.view(np.int8).astype(np.float64), bm.view(np.int8).astype(np.float64),
                cbits.view(np.int32).astype(np.float64))
    va, vb = _values(am, fa), _values(bm, fb)
    sc = decode_scales(name, arch, waves, **scales)
    if sc is not None:
        va, vb = _scaled(*va, sc[0]), _scaled(*vb, sc[1])
    return va[0], vb[0], cbits.view(np.float32).astype(np.float64)


def mfma_reference(name: str, arch: str, a, b, c, cbsz=0, abid=0, blgp=0, **scales) -> np.ndarray:
    """Slow-path reference for tests: float64 A@B + C rounded once to f32 (i8: exact, wrapped).

    Not the hardware rounding; compare ``mfma`` to it within a tolerance."""
    info = mfma_info(name, arch)
    am, bm, cbits, _, _, waves = decode_codes(name, arch, a, b, c, cbsz, abid, blgp)
    if info.kind == "int":
        d = _int_dot(am, bm, cbits)
    else:
        av, bv, cv = operand_values(name, arch, a, b, c, cbsz, abid, blgp, **scales)
        with np.errstate(all="ignore"):
            d = (np.einsum("bik,bkj->bij", av, bv) + cv).astype(np.float32).view(np.uint32)
    return _scatter_d(name, d, waves, np.ndim(c) == 3)
