"""NumPy reference of the fp8 attention kernel (``AttentionConfig.fp8``) that models the
quantisation of P exactly, its random inputs, and the comparison.

The kernel (``kinds.attention.softmax``) computes, per query row and key block of ``BLOCK_K`` = 32
keys from key 0, with t = q_scale k_scale scale log2(e) (Q8 . K8) the scores in log2 units
(masked: -inf), m the running maximum (mu = m, or 0 while m = -inf) and F the fp8 format's
largest finite value:

  m'   = max(m, max_j t_j);  alpha = 2^(m - m')
  P8_j = fp8(2^(t_j - m' + log2 F))        (round to nearest even, ml_dtypes: the arch's format)
  l    = alpha l + sum_j 2^(t_j - m' + log2 F)      (unquantised)
  A    = alpha A + sum_j P8_j V8_j                  (V8: the fp8 values as stored)

and O = A v_scale / l, LSE = ln 2 (m + log2 l - log2 F). The reference does the same in float64,
so it differs from the kernel only by f32 rounding, except where a value 2^(...) lies so close to
a rounding midpoint of the fp8 grid that f32 and float64 may round it to different neighbours:
each such P8_j (``AMBIGUOUS`` relative distance) adds its neighbours' gap x max_d |V8_j,d| to the
row's allowance, rescaled like A. Packed (varlen) batches run each sequence on its own
(``fp8_varlen_reference``). ``drop`` removes one modelled step (a scale, or the P offset F)
so a test can show that the comparison sees it.
"""
from __future__ import annotations

import numpy as np

from ...dtypes import EPS, np_dtype
from .lds import BLOCK_K
from .tolerance import TOLERANCE

AMBIGUOUS = 1e-4      # relative distance to an fp8 rounding midpoint the kernel may round away
DROPS = ("q_scale", "k_scale", "v_scale", "p_offset")


def fp8_reference(cfg, inp: dict, drop: str | None = None):
    """(O, LSE, allowance) in float64: O [B, H, SQ, D], LSE [B, H, SQ], allowance [B, H, SQ]
    (the per-row extra tolerance on O for ambiguous P8 roundings)."""
    if drop is not None and drop not in DROPS:
        raise ValueError(f"drop={drop!r} is not one of {DROPS}")
    fp8 = np_dtype(cfg.dtype)
    big = float(cfg.in_type.max_finite) if drop != "p_offset" else 1.0
    sc = {n: (1.0 if n == drop else float(inp[n])) for n in ("q_scale", "k_scale", "v_scale")}
    q, k, v = (np.asarray(inp[n]).astype(np.float64) for n in ("Q", "K", "V"))
    B, H, SQ, D = q.shape
    HK, SK = k.shape[1], k.shape[2]
    k, v = np.repeat(k, H // HK, axis=1), np.repeat(v, H // HK, axis=1)
    t = np.einsum("bhqd,bhkd->bhqk", q, k) * (sc["q_scale"] * sc["k_scale"] * cfg.scale
                                               * np.log2(np.e))
    if cfg.causal:
        i, j = np.arange(SQ)[:, None], np.arange(SK)[None, :]
        t = np.where(j <= i + SK - SQ, t, -np.inf)
    m = np.full((B, H, SQ), -np.inf)
    ell = np.zeros((B, H, SQ))
    acc = np.zeros((B, H, SQ, D))
    allow = np.zeros((B, H, SQ))
    vmax = np.abs(v).max(axis=-1)                                   # [B, H, SK]
    lb = np.log2(big)
    for k0 in range(0, SK, BLOCK_K):
        tb = t[..., k0:k0 + BLOCK_K]
        mn = np.maximum(m, tb.max(axis=-1))
        mu = np.where(np.isfinite(mn), mn, 0.0)
        with np.errstate(invalid="ignore"):
            alpha = np.where(np.isfinite(m), np.exp2(m - mu), 0.0)
        x = np.exp2(tb - mu[..., None] + lb)
        p8 = x.astype(fp8).astype(np.float64)
        up = (x * (1 + AMBIGUOUS)).astype(fp8).astype(np.float64)
        dn = (x * (1 - AMBIGUOUS)).astype(fp8).astype(np.float64)
        ell = alpha * ell + x.sum(axis=-1)
        acc = alpha[..., None] * acc + np.einsum("bhqk,bhkd->bhqd", p8, v[:, :, k0:k0 + BLOCK_K])
        allow = alpha * allow + np.einsum("bhqk,bhk->bhq", up - dn, vmax[:, :, k0:k0 + BLOCK_K])
        m = mn
    empty = ell <= 0
    den = np.where(empty, 1.0, ell)
    o = np.where(empty[..., None], 0.0, acc * sc["v_scale"] / den[..., None])
    with np.errstate(divide="ignore"):
        lse = np.where(empty, -np.inf, np.log(2.0) * (np.where(np.isfinite(m), m, 0.0)
                                                      + np.log2(den) - lb))
    return o, lse, allow * sc["v_scale"] / den


def fp8_varlen_reference(cfg, inp: dict, drop: str | None = None):
    """(O [H, total_q, D], LSE [H, total_q], allowance [H, total_q]) of packed fp8 sequences
    (the varlen contract, heads-major): sequence b's rows cu_seqlens_q[b] .. [b + 1] over its
    keys cu_seqlens_k[b] .. [b + 1], each by ``fp8_reference`` on its own (the kernel's key
    blocks start at each sequence's first key); rows of no sequence: O = 0, LSE = -inf."""
    q = np.asarray(inp["Q"])
    H, TQ, D = q.shape
    cu_q, cu_k = (np.asarray(inp[n]).astype(np.int64) for n in ("cu_seqlens_q", "cu_seqlens_k"))
    o, lse, allow = np.zeros((H, TQ, D)), np.full((H, TQ), -np.inf), np.zeros((H, TQ))
    for b in range(len(cu_q) - 1):
        q0, q1, k0, k1 = int(cu_q[b]), int(cu_q[b + 1]), int(cu_k[b]), int(cu_k[b + 1])
        if q1 <= q0:
            continue
        one = {n: inp[n] for n in ("q_scale", "k_scale", "v_scale")}
        one.update(Q=q[None, :, q0:q1], K=np.asarray(inp["K"])[None, :, k0:k1],
                   V=np.asarray(inp["V"])[None, :, k0:k1])
        ob, lb, ab = fp8_reference(cfg, one, drop)
        o[:, q0:q1], lse[:, q0:q1], allow[:, q0:q1] = ob[0], lb[0], ab[0]
    return o, lse, allow


def fp8_random_inputs(cfg, seed: int, scalars: dict | None = None) -> dict:
    """Seeded fp8 Q, K in [-16, 16) and V in [-8, 24) (a positive mean: dropping the P offset
    biases O) with q_scale, k_scale in [0.15, 0.3) and v_scale in [0.05, 0.1): scores spread over
    about e^+-12, so many P values sit below the fp8 normal range without the offset."""
    sc = {"batch": cfg.batch, "heads": cfg.heads, "kv_heads": cfg.kv_heads,
          "seqlen_q": cfg.seqlen_q, "seqlen_k": cfg.seqlen_k} | dict(scalars or {})
    b, h, hk, sq, sk, d = (sc["batch"], sc["heads"], sc["kv_heads"], sc["seqlen_q"],
                           sc["seqlen_k"], cfg.head_dim)
    return fp8_values(cfg, np.random.default_rng(seed), (b, h, sq, d), (b, hk, sk, d))


def fp8_values(cfg, rng, q_shape, kv_shape) -> dict:
    """Q of ``q_shape``, K and V of ``kv_shape`` and the three scales in
    ``fp8_random_inputs``' ranges, drawn from ``rng`` (dense and packed varlen inputs)."""
    dt = np_dtype(cfg.dtype)
    return {"Q": rng.uniform(-16, 16, q_shape).astype(dt),
            "K": rng.uniform(-16, 16, kv_shape).astype(dt),
            "V": rng.uniform(-8, 24, kv_shape).astype(dt),
            "q_scale": float(np.float32(rng.uniform(0.15, 0.3))),
            "k_scale": float(np.float32(rng.uniform(0.15, 0.3))),
            "v_scale": float(np.float32(rng.uniform(0.05, 0.1)))}


def fp8_tolerance(cfg) -> float:
    """Relative tolerance on O of an fp8 kernel (``tolerance.TOLERANCE``): unit roundoffs of
    ``out_dtype``
    (O rounded once) plus ``F32_MATH`` (the f32 accumulation of the exact fp8 products, l, and
    v_exp_f32 / v_rcp_f32 at 1 ulp each); the row's ambiguity allowance comes on top (module
    docstring)."""
    how, units = TOLERANCE[cfg.dtype]
    assert how == "rel_out_units", how
    return units * EPS[cfg.out_dtype] + F32_MATH


F32_MATH = 2.0 ** -16


def compare_fp8(cfg, outs: dict, inp: dict, drop: str | None = None) -> tuple[bool, str]:
    """(ok, message): |O - ref| <= tol |ref| + 2^-20 v_scale max|V8| + allowance per element,
    LSE within 1e-4 relative (both -inf where a row sees no key), no NaN."""
    ref = fp8_varlen_reference if "cu_seqlens_q" in inp else fp8_reference
    o_ref, lse_ref, allow = ref(cfg, inp, drop)
    o = np.asarray(outs["O"]).astype(np.float64)
    lse = np.asarray(outs["LSE"]).astype(np.float64)
    if np.isnan(o).any() or np.isnan(lse).any():
        return False, (f"{cfg.name}: NaN in output (O {int(np.isnan(o).sum())}, "
                       f"LSE {int(np.isnan(lse).sum())})")
    rel = fp8_tolerance(cfg)
    floor = 2.0 ** -20 * float(inp["v_scale"]) * float(np.abs(np.asarray(inp["V"]).astype(
        np.float64)).max(initial=0.0))
    tol = rel * np.abs(o_ref) + floor + allow[..., None]
    err = np.abs(o - o_ref)
    bad = int((err > tol).sum())
    worst = float((err / tol).max()) if err.size else 0.0
    inf_ok = bool(np.array_equal(np.isneginf(lse), np.isneginf(lse_ref)))
    fin = np.isfinite(lse_ref)
    err_l = float((np.abs(lse - lse_ref)[fin] / np.maximum(1.0, np.abs(lse_ref[fin]))).max()) \
        if fin.any() else 0.0
    ok = bad == 0 and inf_ok and err_l <= 1e-4
    msg = (f"{cfg.name}: {bad} O elements out of tolerance (worst err/tol {worst:.3g}, rel tol "
           f"{rel:.3g}, {int((allow > 0).sum())} rows with ambiguous P), LSE rel err "
           f"{err_l:.3g}, -inf rows {'match' if inf_ok else 'DIFFER'}")
    return ok, msg
