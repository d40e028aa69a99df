"""NumPy reference of attention forward in float64 (design.md Contracts), random inputs and the
comparison used by tests and ``asmgen check``.

O[b, h] = softmax(Q[b, h] K[b, g]^T * scale + mask) V[b, g] with g = h // (heads / kv_heads);
the causal mask is bottom-right aligned (query i sees keys j <= i + seqlen_k - seqlen_q);
LSE[b, h, i] = ln sum_j exp(scaled, masked score); a row that sees no key gets O = 0 and
LSE = -inf. Inputs are taken in their real formats (f16/bf16 values) and computed in float64.
"""
from __future__ import annotations

import numpy as np

from ...dtypes import np_dtype
from .tolerance import TOLERANCE, tolerance  # noqa: F401  (decode imports tolerance here)


def attention_reference(Q, K, V, scale: float, causal: bool) -> tuple[np.ndarray, np.ndarray]:
    """(O, LSE) in float64 for Q [B, H, SQ, D], K/V [B, HK, SK, D]."""
    q, k, vv = (np.asarray(x).astype(np.float64) for x in (Q, K, V))
    _B, H, SQ, _D = q.shape
    HK, SK = k.shape[1], k.shape[2]
    g = H // HK
    k = np.repeat(k, g, axis=1)
    vv = np.repeat(vv, g, axis=1)
    s = np.einsum("bhqd,bhkd->bhqk", q, k) * scale
    if causal:
        i = np.arange(SQ)[:, None]
        j = np.arange(SK)[None, :]
        s = np.where(j <= i + SK - SQ, s, -np.inf)
    m = s.max(axis=-1, keepdims=True)
    empty = ~np.isfinite(m)
    m = np.where(empty, 0.0, m)
    p = np.exp(s - m)
    lsum = p.sum(axis=-1, keepdims=True)
    o = np.einsum("bhqk,bhkd->bhqd", p, vv) / np.where(lsum > 0, lsum, 1.0)
    with np.errstate(divide="ignore"):
        lse = (m + np.log(lsum))[..., 0]
    o = np.where(empty, 0.0, o)
    lse = np.where(empty[..., 0], -np.inf, lse)
    return o, lse


def varlen_reference(Q, K, V, cu_q, cu_k, scale: float,
                     causal: bool) -> tuple[np.ndarray, np.ndarray]:
    """(O [H, total_q, D], LSE [H, total_q]) of packed sequences (the varlen contract): sequence
    b is rows cu_q[b] .. cu_q[b + 1] of Q and cu_k[b] .. cu_k[b + 1] of K/V, attended on its own
    by ``attention_reference`` (causal bottom-right per sequence); rows of no sequence get
    O = 0, LSE = -inf."""
    q, k, vv = (np.asarray(x).astype(np.float64) for x in (Q, K, V))
    H, TQ, D = q.shape
    o = np.zeros((H, TQ, D))
    lse = np.full((H, TQ), -np.inf)
    for b in range(len(cu_q) - 1):
        q0, q1, k0, k1 = int(cu_q[b]), int(cu_q[b + 1]), int(cu_k[b]), int(cu_k[b + 1])
        if q1 <= q0:
            continue
        if k1 <= k0:          # no key: every row sees nothing
            continue
        ob, lb = attention_reference(q[None, :, q0:q1], k[None, :, k0:k1], vv[None, :, k0:k1],
                                     scale, causal)
        o[:, q0:q1], lse[:, q0:q1] = ob[0], lb[0]
    return o, lse


def ragged_lengths(cfg, rng) -> tuple[list[int], list[int]]:
    """``batch`` sequences' (query, key) lengths drawn from ``rng``: the last one is the
    contract's (seqlen_q, seqlen_k), the others each take 0, 1, the maximum or any length up
    to it (so packed batches hold empty, length-1 and keyless sequences, and Q-blocks that end
    mid-sequence)."""
    def one(hi: int) -> int:
        return int(rng.choice([0, 1, hi, int(rng.integers(0, hi + 1))]))
    lq = [one(cfg.seqlen_q) for _ in range(cfg.batch - 1)] + [cfg.seqlen_q]
    lk = [one(cfg.seqlen_k) for _ in range(cfg.batch - 1)] + [cfg.seqlen_k]
    return lq, lk


def varlen_random_inputs(cfg, seed: int, lens_q=None, lens_k=None) -> dict:
    """Seeded packed Q, K, V and cu_seqlens for sequence lengths ``lens_q`` / ``lens_k``;
    with neither given, ``ragged_lengths`` drawn from the seed and the matching scalars
    (``varlen_scalars``) in the dict, so ``asmgen check`` and the fuzzer run ragged batches."""
    ragged = lens_q is None and lens_k is None
    if ragged:
        lens_q, lens_k = ragged_lengths(cfg, np.random.default_rng([seed, 17]))
    lq = [cfg.seqlen_q] * cfg.batch if lens_q is None else list(lens_q)
    lk = [cfg.seqlen_k] * cfg.batch if lens_k is None else list(lens_k)
    cu_q = np.concatenate([[0], np.cumsum(lq)]).astype(np.int32)
    cu_k = np.concatenate([[0], np.cumsum(lk)]).astype(np.int32)
    tq, tk = max(int(cu_q[-1]), 1), max(int(cu_k[-1]), 1)
    rng = np.random.default_rng(seed)
    dt = np_dtype(cfg.dtype)
    h, hk, d = cfg.heads, cfg.kv_heads, cfg.head_dim
    out = {"Q": rng.uniform(-1, 1, (h, tq, d)).astype(dt),
           "K": rng.uniform(-1, 1, (hk, tk, d)).astype(dt),
           "V": rng.uniform(-1, 1, (hk, tk, d)).astype(dt),
           "cu_seqlens_q": cu_q, "cu_seqlens_k": cu_k}
    return out | varlen_scalars(out) if ragged else out


def fp8_varlen_random_inputs(cfg, seed: int, lens_q=None, lens_k=None) -> dict:
    """Packed fp8 inputs: ``varlen_random_inputs``' lengths and layout (ragged lengths drawn
    from the seed unless given) with the fp8 value ranges and scales (``fp8ref.fp8_values``),
    and the runtime scalars of the packed arrays (``varlen_scalars``)."""
    from .fp8ref import fp8_values
    out = varlen_random_inputs(cfg, seed, lens_q, lens_k)
    out.update(fp8_values(cfg, np.random.default_rng([seed, 8]), out["Q"].shape,
                          out["K"].shape))
    return out | varlen_scalars(out)


def varlen_scalars(inp: dict) -> dict:
    """The runtime scalars of packed inputs (``varlen_random_inputs``)."""
    cq, ck = inp["cu_seqlens_q"], inp["cu_seqlens_k"]
    return {"batch": len(cq) - 1, "total_q": inp["Q"].shape[1], "total_k": inp["K"].shape[1],
            "max_seqlen_q": max(int(np.diff(cq).max(initial=0)), 1),
            "max_seqlen_k": max(int(np.diff(ck).max(initial=0)), 1)}


def attention_random_inputs(cfg, seed: int, scalars: dict | None = None) -> dict:
    """Seeded Q, K, V in [-1, 1) rounded to the config's dtype (shapes of the contract; fp8:
    ``fp8ref.fp8_random_inputs``, with the scales)."""
    if getattr(cfg, "fp8", False) and getattr(cfg, "varlen", False):
        return fp8_varlen_random_inputs(cfg, seed)
    if getattr(cfg, "fp8", False):
        from .fp8ref import fp8_random_inputs
        return fp8_random_inputs(cfg, seed, scalars)
    if getattr(cfg, "varlen", False):
        return varlen_random_inputs(cfg, seed)
    sc = {"batch": cfg.batch, "heads": cfg.heads, "kv_heads": cfg.kv_heads, "seqlen_q": cfg.seqlen_q,
              "seqlen_k": cfg.seqlen_k} | dict(scalars or {})
    rng = np.random.default_rng(seed)
    dt = np_dtype(cfg.dtype)
    b, h, hk, sq, sk, d = (sc["batch"], sc["heads"], sc["kv_heads"], sc["seqlen_q"],
                           sc["seqlen_k"], cfg.head_dim)
    return {"Q": rng.uniform(-1, 1, (b, h, sq, d)).astype(dt),
            "K": rng.uniform(-1, 1, (b, hk, sk, d)).astype(dt),
            "V": rng.uniform(-1, 1, (b, hk, sk, d)).astype(dt)}


def compare_attention(cfg, outs: dict, inp: dict) -> tuple[bool, str]:
    """(ok, message): O within ``tolerance``, LSE within 1e-4 relative (both -inf where a
    row sees no key), and no NaN anywhere (fp8 kernels: ``fp8ref.compare_fp8``)."""
    if getattr(cfg, "fp8", False):
        from .fp8ref import compare_fp8
        return compare_fp8(cfg, outs, inp)
    if "cu_seqlens_q" in inp:
        o_ref, lse_ref = varlen_reference(inp["Q"], inp["K"], inp["V"], inp["cu_seqlens_q"],
                                          inp["cu_seqlens_k"], cfg.scale, cfg.causal)
    else:
        o_ref, lse_ref = attention_reference(inp["Q"], inp["K"], inp["V"], cfg.scale, cfg.causal)
    o = np.asarray(outs["O"]).astype(np.float64)
    lse = np.asarray(outs["LSE"]).astype(np.float64)
    if np.isnan(o).any() or np.isnan(lse).any():
        return False, f"{cfg.name}: NaN in output (O {int(np.isnan(o).sum())}, LSE {int(np.isnan(lse).sum())})"
    tol = tolerance(cfg.dtype)
    err_o = float(np.abs(o - o_ref).max()) if o.size else 0.0
    inf_ok = bool(np.array_equal(np.isneginf(lse), np.isneginf(lse_ref)))
    fin = np.isfinite(lse_ref)
    err_l = float((np.abs(lse - lse_ref)[fin] / np.maximum(1.0, np.abs(lse_ref[fin]))).max()) \
        if fin.any() else 0.0
    ok = err_o <= tol and inf_ok and err_l <= 1e-4
    msg = (f"{cfg.name}: max|O - ref| = {err_o:.3g} (tol {tol:.3g}), LSE rel err {err_l:.3g}, "
           f"-inf rows {'match' if inf_ok else 'DIFFER'} ({int((~fin).sum())} empty rows)")
    return ok, msg
