"""NumPy reference of extend attention in float64, its random inputs and the comparison used by
tests and ``asmgen check``.

Sequence b: new tokens cu_q[b] .. cu_q[b + 1] - 1 (q_len of them) of ``q [heads, total_q, D]``,
keys 0 .. L - 1 of its cache (L = context_lens[b] clamped to 0..max_context; paged: through its
block-table row; an fp8 cache times its ``k_scale`` / ``v_scale``, per tensor or per key as in
decode: ``decode.reference.scaled_kv``). New token t sees keys j <= L - q_len + t; head h reads
KV head h // group. A row
that sees no key (L < q_len: refused at launch for host arrays), and every row of no sequence,
has O = 0, LSE = -inf. The random
inputs fill every cache entry no sequence may read (past a context, pages no table names) with
NaN (per-token scales too; fp8 caches and their scales are drawn as decode's,
``decode.reference.cache_values``): a kernel reading one fails the comparison.
"""
from __future__ import annotations

import numpy as np

from ...dtypes import np_dtype
from ..decode.reference import _attend, _compare, cache_values, scaled_kv


def extend_reference(cfg, inp: dict) -> tuple[np.ndarray, np.ndarray]:
    """(O [heads, total_q, D], LSE [heads, total_q])."""
    q = np.asarray(inp["q"]).astype(np.float64)
    H, TQ, D = q.shape
    G = cfg.group
    cu = np.asarray(inp["cu_seqlens_q"]).astype(np.int64)
    lens = np.clip(np.asarray(inp["context_lens"]).astype(np.int64), 0, cfg.max_context)
    o = np.zeros((H, TQ, D))
    lse = np.full((H, TQ), -np.inf)
    for b in range(len(cu) - 1):
        q0, q1, L = int(cu[b]), int(cu[b + 1]), int(lens[b])
        n = q1 - q0
        if n <= 0:
            continue
        k, v = scaled_kv(cfg, inp, b, L)
        lim = np.minimum(L - n + 1 + np.arange(n), L)
        for h in range(H):
            o[h, q0:q1], lse[h, q0:q1] = _attend(q[h, q0:q1], k[:, h // G], v[:, h // G], lim,
                                                 cfg.scale)
    return o, lse


def ragged_lengths(cfg, rng) -> tuple[list[int], list[int]]:
    """``batch`` sequences' (new tokens, keys) drawn from ``rng``: the last one is the
    contract's (seqlen_q over context_len), the others take 0, 1, seqlen_q or any new-token
    count up to seqlen_q over a prefix of 0, 1, a multiple of 32 or any length, within
    max_context."""
    ql, cl = [], []
    for _ in range(cfg.batch - 1):
        q = int(rng.choice([0, 1, cfg.seqlen_q, int(rng.integers(0, cfg.seqlen_q + 1))]))
        room = cfg.max_context - q
        pre = int(rng.choice([0, min(1, room), 32 * int(rng.integers(0, room // 32 + 1)),
                              int(rng.integers(0, room + 1))]))
        ql.append(q)
        cl.append(q + pre)
    return ql + [cfg.seqlen_q], cl + [cfg.context_len]


def extend_random_inputs(cfg, seed: int, q_lens=None, context_lens=None) -> dict:
    """Seeded inputs and scalars for sequences of ``q_lens`` new tokens over ``context_lens``
    keys (default: ``ragged_lengths`` of ``batch`` sequences), the caches' unreadable entries
    NaN; paged: a block table naming shuffled pages of the pool."""
    rng = np.random.default_rng(seed)
    dt = np_dtype(cfg.dtype)
    B = cfg.batch if q_lens is None else len(q_lens)
    if q_lens is None and context_lens is None:
        q_lens, context_lens = ragged_lengths(cfg, rng)
    ql = np.array([cfg.seqlen_q] * B if q_lens is None else q_lens, np.int64)
    lens = np.array([cfg.context_len] * B if context_lens is None else context_lens, np.int32)
    cu = np.concatenate([[0], np.cumsum(ql)]).astype(np.int32)
    tq = max(int(cu[-1]), 1)
    H, HK, D = cfg.heads, cfg.kv_heads, cfg.head_dim
    clip = np.clip(lens, 0, cfg.max_context)
    out = {"q": rng.uniform(-1, 1, (H, tq, D)).astype(dt), "cu_seqlens_q": cu,
           "context_lens": lens}
    if cfg.paged:
        P, MB = cfg.page_size, cfg.max_blocks_per_seq
        nb = cfg.num_blocks              # fewer than B x MB: sequences share pages (read only)
        table = np.resize(rng.permutation(nb), B * MB).reshape(B, MB).astype(np.int32)
        readable = np.zeros((nb, P), bool)
        for b in range(B):
            for j in range(-(-int(clip[b]) // P)):
                readable[table[b, j], :min(P, int(clip[b]) - j * P)] = True
        out["block_table"] = table
        shape = (nb, P, HK, D)
        out["num_blocks"] = nb
    else:
        shape = (B, cfg.max_context, HK, D)
        readable = np.arange(cfg.max_context)[None, :] < clip[:, None]
    out.update(cache_values(cfg, rng, shape, readable))
    out.update(batch=B, total_q=tq, max_seqlen_q=max(int(ql.max(initial=0)), 1))
    return out



def compare_extend(cfg, out: dict, inp: dict) -> tuple[bool, str]:
    """o / lse against the reference: O within the dtype's tolerance, LSE 1e-4 relative, the
    same -inf rows, no NaN."""
    o_ref, lse_ref = extend_reference(cfg, inp)
    return _compare(cfg.name, out["o"], out["lse"], o_ref, lse_ref, cfg.dtype)
