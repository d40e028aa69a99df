"""NumPy references of decode attention and of the split combine, in float64, their random
inputs and the comparisons used by tests and ``asmgen check``.

Token t of sequence b (``context_lens[b]`` = L keys, the q_tokens new ones last) sees keys
j <= L - q_tokens + t; query head h reads KV head h // group. A row that sees no key has O = 0,
LSE = -inf. Split s of ``num_splits`` covers keys [s c, (s + 1) c) with c = 32 ceil(ceil(L / 32)
/ num_splits) (the kernel's ranges); its partial O is normalised over its own keys and its LSE is
the log-sum-exp of its own scores. fp8 caches (``kv_dtype``) are decoded exactly by ml_dtypes and
scaled: K = k_scale x k_cache, V = v_scale x v_cache (``k_scale`` / ``v_scale`` from the inputs,
1.0 when absent; per-token scales, arrays ``[num_blocks, kv_heads, page_size]`` paged or
``[batch, kv_heads, max_context]`` dense, are gathered per key like the caches). The random
inputs fill every cache entry no sequence may read (past a context, or pages no table names)
with NaN: a kernel reading one fails the comparison.
"""
from __future__ import annotations

import numpy as np

from ...dtypes import np_dtype
from ..attention.reference import tolerance

BLOCK = 32


def gather_kv(cache, b: int, length: int, block_table=None, page_size: int = 0):
    """Keys (or values) 0..length-1 of sequence b: [length, kv_heads, D]."""
    c = np.asarray(cache)
    if block_table is None:
        return c[b, :length]
    pages = np.asarray(block_table)[b, :-(-length // page_size)]
    return c[pages].reshape(-1, c.shape[2], c.shape[3])[:length]


def gather_scale(scale, b: int, length: int, block_table=None, page_size: int = 0):
    """Per-token scales of keys 0..length-1 of sequence b: [length, kv_heads] (a per-tensor
    scale, a number, is returned as is)."""
    if np.ndim(scale) == 0:
        return float(scale)
    c = np.asarray(scale)
    if block_table is None:
        return c[b, :, :length].T
    pages = np.asarray(block_table)[b, :-(-length // page_size)]
    return c[pages].transpose(0, 2, 1).reshape(-1, c.shape[1])[:length]


def split_ranges(length: int, num_splits: int) -> list[tuple[int, int]]:
    nblk = -(-length // BLOCK)
    bps = -(-nblk // num_splits)
    return [(min(s * bps * BLOCK, length), min((s + 1) * bps * BLOCK, length))
            for s in range(num_splits)]


def _attend(q, k, v, lim, scale):
    """O [R, D], LSE [R] of rows q [R, D] over keys k/v [N, D], row i seeing keys < lim[i]."""
    n = k.shape[0]
    s = q @ k.T * scale if n else np.zeros((q.shape[0], 0))
    vis = np.arange(n)[None, :] < lim[:, None]
    s = np.where(vis, s, -np.inf)
    m = s.max(axis=1, initial=-np.inf)
    empty = ~np.isfinite(m)
    mm = np.where(empty, 0.0, m)
    p = np.where(vis, np.exp(s - mm[:, None]), 0.0)
    l_ = p.sum(axis=1)
    o = (p @ np.where(vis.any(axis=0)[:, None], v, 0.0)) / np.where(l_ > 0, l_, 1.0)[:, None] \
        if n else np.zeros((q.shape[0], v.shape[1]))
    with np.errstate(divide="ignore"):
        lse = mm + np.log(l_)
    return np.where(empty[:, None], 0.0, o), np.where(empty, -np.inf, lse)


def _per_key(scale):
    """A gathered scale broadcast over head_dim: a number, or [L, kv_heads, 1]."""
    return scale if np.ndim(scale) == 0 else np.asarray(scale, np.float64)[:, :, None]


def scaled_kv(cfg, inp: dict, b: int, length: int):
    """K and V (float64, [length, kv_heads, D]) of sequence b's first ``length`` keys, dense or
    through its block-table row, times ``k_scale`` / ``v_scale`` (per tensor or gathered per
    key; 1.0 when absent)."""
    bt = inp.get("block_table") if cfg.paged else None
    out = []
    for n, sn in (("k_cache", "k_scale"), ("v_cache", "v_scale")):
        x = gather_kv(inp[n], b, length, bt, cfg.page_size).astype(np.float64)
        out.append(x * _per_key(gather_scale(inp.get(sn, 1.0), b, length, bt, cfg.page_size)))
    return out


def decode_reference(cfg, inp: dict, split: bool = False):
    """(O, LSE): [B, T, H, D], [B, T, H]; with ``split`` the per-split partials
    [B, S, T, H, D], [B, S, T, H]."""
    q = np.asarray(inp["q"]).astype(np.float64)
    B, T, H, D = q.shape
    G, S = cfg.group, cfg.num_splits if split else 1
    lens = np.clip(np.asarray(inp["context_lens"]).astype(np.int64), 0, cfg.max_context)
    o = np.zeros((B, S, T, H, D))
    lse = np.full((B, S, T, H), -np.inf)
    for b in range(B):
        L = int(lens[b])
        k, v = scaled_kv(cfg, inp, b, L)
        ranges = split_ranges(L, S) if split else [(0, L)]
        for s, (k0, k1) in enumerate(ranges):
            for kvh in range(cfg.kv_heads):
                rows = q[b, :, kvh * G:(kvh + 1) * G].reshape(T * G, D)     # row = t G + g
                lim = (L - T + 1 + np.repeat(np.arange(T), G)) - k0
                lim = np.minimum(lim, k1 - k0)
                ob, lb = _attend(rows, k[k0:k1, kvh], v[k0:k1, kvh], lim, cfg.scale)
                o[b, s, :, kvh * G:(kvh + 1) * G] = ob.reshape(T, G, D)
                lse[b, s, :, kvh * G:(kvh + 1) * G] = lb.reshape(T, G)
    if not split:
        return o[:, 0], lse[:, 0]
    return o, lse


def combine_reference(o_partial, lse_partial):
    """O = sum_s exp(LSE_s - LSE) O_s, LSE = log sum_s exp(LSE_s); all -inf: O = 0, LSE = -inf."""
    o = np.asarray(o_partial).astype(np.float64)
    lse = np.asarray(lse_partial).astype(np.float64)
    m = lse.max(axis=1)
    empty = ~np.isfinite(m)
    mm = np.where(empty, 0.0, m)
    w = np.exp(lse - mm[:, None])
    tot = w.sum(axis=1)
    out = np.einsum("bsthd,bsth->bthd", o, w) / np.where(tot > 0, tot, 1.0)[..., None]
    with np.errstate(divide="ignore"):
        lse_o = mm + np.log(tot)
    return np.where(empty[..., None], 0.0, out), np.where(empty, -np.inf, lse_o)


def decode_random_inputs(cfg, seed: int, context_lens=None) -> dict:
    """Seeded q, caches (unreadable entries NaN), lengths (default: random in 1..context_len,
    the last one context_len) and, paged, a block table naming shuffled pages. fp8 caches hold
    values in [-4, 4) (fp8 steps of 1/32 .. 1/4 there) and ``k_scale`` / ``v_scale`` are drawn
    in [0.25, 1) and [1, 2): the scaled K and V are O(1), and dropping either changes O. Per-token
    scales (``kv_scale`` "token") are drawn per (key, KV head) in the same ranges, NaN where the
    cache entry is unreadable."""
    rng = np.random.default_rng(seed)
    dt = np_dtype(cfg.dtype)
    B, T, H, HK, D = cfg.batch, cfg.q_tokens, cfg.heads, cfg.kv_heads, cfg.head_dim
    if context_lens is None:
        hi = max(1, cfg.context_len)
        context_lens = rng.integers(1, hi + 1, B)
        context_lens[-1] = cfg.context_len
    lens = np.asarray(context_lens, np.int32)
    out = {"q": rng.uniform(-1, 1, (B, T, H, D)).astype(dt), "context_lens": lens}
    if cfg.paged:
        P, MB = cfg.page_size, cfg.max_blocks_per_seq
        shape = (cfg.num_blocks, P, HK, D)
        perm = rng.permutation(cfg.num_blocks)
        table = np.resize(perm, B * MB).reshape(B, MB).astype(np.int32)
        readable = np.zeros((cfg.num_blocks, P), bool)
        for b in range(B):
            L = int(np.clip(lens[b], 0, cfg.max_context))
            for j in range(-(-L // P)):
                readable[table[b, j], :min(P, L - j * P)] = True
        out["block_table"] = table
    else:
        shape = (B, cfg.max_context, HK, D)
        readable = np.arange(cfg.max_context)[None, :] < np.clip(lens, 0, None)[:, None]
    return out | cache_values(cfg, rng, shape, readable)


def cache_values(cfg, rng, shape, readable) -> dict:
    """Seeded ``k_cache`` / ``v_cache`` of ``shape`` (NaN where not ``readable``, a [pages or
    batch, keys] mask) and an fp8 cache's ``k_scale`` / ``v_scale`` (decode and extend): 16-bit
    caches in [-1, 1); fp8 caches in [-4, 4) (fp8 steps of 1/32 .. 1/4 there) with scales in
    [0.25, 1) and [1, 2), per tensor or per (key, KV head) (``[pages or batch, kv_heads, keys]``,
    NaN where unreadable)."""
    out = {}
    fp8 = cfg.kv_dtype != cfg.dtype
    for n in ("k_cache", "v_cache"):
        c = rng.uniform(-4, 4, shape) if fp8 else rng.uniform(-1, 1, shape)
        c[~readable] = np.nan
        out[n] = c.astype(np_dtype(cfg.kv_dtype))
    if fp8 and cfg.token_scales:
        for n, (lo, hi) in (("k_scale", (0.25, 1.0)), ("v_scale", (1.0, 2.0))):
            sc = rng.uniform(lo, hi, (shape[0], cfg.kv_heads, shape[1]))
            sc[np.broadcast_to(~readable[:, None, :], sc.shape)] = np.nan
            out[n] = sc.astype(np.float32)
    elif fp8:
        out["k_scale"] = float(np.float32(rng.uniform(0.25, 1.0)))
        out["v_scale"] = float(np.float32(rng.uniform(1.0, 2.0)))
    return out


def _compare(name, o, lse, o_ref, lse_ref, dtype) -> tuple[bool, str]:
    o = np.asarray(o).astype(np.float64)
    lse = np.asarray(lse).astype(np.float64)
    if np.isnan(o).any() or np.isnan(lse).any():
        return False, (f"{name}: NaN in output (O {int(np.isnan(o).sum())}, "
                       f"LSE {int(np.isnan(lse).sum())})")
    tol = tolerance(dtype)
    err_o = float(np.abs(o - o_ref).max()) if o.size else 0.0
    inf_ok = bool(np.array_equal(np.isneginf(lse), np.isneginf(lse_ref)))
    fin = np.isfinite(lse_ref) & np.isfinite(lse)
    err_l = float((np.abs(lse - lse_ref)[fin] / np.maximum(1.0, np.abs(lse_ref[fin]))).max()) \
        if fin.any() else 0.0
    ok = err_o <= tol and inf_ok and err_l <= 1e-4
    return ok, (f"{name}: max|O - ref| = {err_o:.3g} (tol {tol:.3g}), LSE rel err {err_l:.3g}, "
                f"-inf rows {'match' if inf_ok else 'DIFFER'} ({int((~np.isfinite(lse_ref)).sum())} "
                f"empty)")


def compare_decode(cfg, out: dict, inp: dict) -> tuple[bool, str]:
    """The kernel's outputs against the reference: o/lse with one split, else the partials."""
    split = cfg.num_splits > 1
    o_ref, lse_ref = decode_reference(cfg, inp, split)
    no, nl = ("o_partial", "lse_partial") if split else ("o", "lse")
    return _compare(cfg.name, out[no], out[nl], o_ref, lse_ref, cfg.dtype)


def combine_random_inputs(cfg, seed: int) -> dict:
    """Partials in [-1, 1) and LSEs in [-4, 4], a quarter of them -inf (empty splits), one row
    with every split empty."""
    rng = np.random.default_rng(seed)
    B, S, T, H, D = cfg.batch, cfg.num_splits, cfg.q_tokens, cfg.heads, cfg.head_dim
    lse = rng.uniform(-4, 4, (B, S, T, H))
    lse[rng.random(lse.shape) < 0.25] = -np.inf
    lse[0, :, 0, 0] = -np.inf
    o = rng.uniform(-1, 1, (B, S, T, H, D))
    o[np.isneginf(lse)] = 0.0
    return {"o_partial": o.astype(np_dtype(cfg.dtype)), "lse_partial": lse.astype(np.float32)}


def compare_combine(cfg, out: dict, inp: dict) -> tuple[bool, str]:
    o_ref, lse_ref = combine_reference(inp["o_partial"], inp["lse_partial"])
    return _compare(cfg.name, out["o"], out["lse"], o_ref, lse_ref, cfg.dtype)
