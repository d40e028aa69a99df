"""Fuzzing the extend kind: the hypothesis strategy of valid ``ExtendConfig``s (chunks of 1..70
new tokens over contexts up to 160 or 320 keys, aligned to the 32-key block, one off, or any;
dense or paged with pages of 16, 32, 64, KV in ``dtype`` or the arch's fp8 with per-tensor
or per-token scales (``decode.fuzz.draw_cache``); MHA/GQA/MQA, both dtypes, head dims and arches, prefetch
0/1, 1..3 sequences whose ragged lengths the emulator seed draws: ``reference.ragged_lengths``),
the shrink moves of a failing config and the kernels of the mutation proof."""
from __future__ import annotations

from hypothesis import reject
from hypothesis import strategies as st

from ...errors import ConfigError
from ...target import ARCHES, CDNA4
from ..attention.config import HEAD_DIMS
from ..attention.fuzz import _seqlen
from ..decode.fuzz import cache_candidates, draw_cache, to_raw  # noqa: F401  (to_raw: the kind's)
from .config import BLOCK_K, BLOCK_Q, ExtendConfig


@st.composite
def extend_configs(draw, small: bool = True, arches=ARCHES) -> ExtendConfig:
    arch = draw(st.sampled_from(tuple(arches)))
    heads = draw(st.sampled_from((1, 2, 4, 6, 8)))
    kv_heads = draw(st.sampled_from([d for d in range(1, heads + 1) if heads % d == 0]))
    hi = 160 if small else 320
    ctx = _seqlen(draw, BLOCK_K, hi)
    sq = min(ctx, _seqlen(draw, BLOCK_Q, 70))
    maxc, extra = draw_cache(draw, arch, ctx + draw(st.sampled_from((0, 0, 1, 40))))
    try:
        return ExtendConfig(
            batch=draw(st.integers(1, 3)), heads=heads, kv_heads=kv_heads, seqlen_q=sq,
            max_context=maxc, context_len=ctx, head_dim=draw(st.sampled_from(HEAD_DIMS)),
            dtype=draw(st.sampled_from(("f16", "bf16"))), arch=arch,
            prefetch=draw(st.sampled_from((0, 1))), **extra)
    except ConfigError:
        reject()


def candidates(raw: dict):
    """Smaller variants, most aggressive first: shorter contexts and chunks, batch 1, fewer
    heads, D 64, dense, then the defaults (prefetch 1, f16, gfx942)."""
    page = raw["page_size"] if raw["paged"] else 1
    for val in sorted({1, 32, 33, raw["context_len"] // 2, raw["context_len"] - 1}):
        if 1 <= val < raw["context_len"]:
            maxc = max(page, -(-val // page) * page)
            yield {**raw, "context_len": val, "max_context": maxc,
                   "seqlen_q": min(raw["seqlen_q"], val), "num_blocks": None}
    for val in sorted({1, 32, raw["seqlen_q"] // 2, raw["seqlen_q"] - 1}):
        if 1 <= val < raw["seqlen_q"]:
            yield {**raw, "seqlen_q": val}
    for key, val in (("batch", 1), ("head_dim", 64), ("prefetch", 1), ("dtype", "f16"),
                     ("kv_scale", "tensor"), ("kv_dtype", None)):
        if raw.get(key, "tensor") != val:
            yield {**raw, key: val, "mfma_k": None, "num_blocks": None,
                   **({"kv_scale": "tensor"} if key == "kv_dtype" else {})}
    yield from cache_candidates(raw)


# Extend proof kernels: both arches, dense and paged (16-key pages: two per block and the
# per-lane page select; 64-key pages), GQA, chunks of several Q-blocks over prefixes that leave
# the diagonal blocks partial, prefetch 0 and 1, the attention recipes and a fuzzed order. The
# random inputs (three ragged sequences: ``reference.ragged_lengths``) walk 3+ key blocks with
# a partial last one. bf16 only on CDNA4 (gfx942's bf16 rounding swapped with its neighbour is
# a sub-ulp change no tolerance-based check sees: decode.fuzz says why). The fourth reads an
# fp8 KV cache (the dequant, k_scale / v_scale folded), the fifth per-token scales (their
# loads, the deferred v-scale prefetch, the score and P products).
PROOF_KERNELS = (
    {"batch": 3, "heads": 4, "kv_heads": 2, "seqlen_q": 40, "head_dim": 64, "max_context": 144,
     "context_len": 130, "paged": True, "page_size": 16, "dtype": "f16",
     "schedule": "attn_basic"},
    {"batch": 3, "heads": 2, "kv_heads": 1, "seqlen_q": 37, "head_dim": 64, "max_context": 140,
     "dtype": "bf16", "arch": CDNA4, "schedule": "attn_interleave"},
    {"batch": 2, "heads": 2, "seqlen_q": 33, "head_dim": 128, "max_context": 192,
     "context_len": 161, "paged": True, "page_size": 64, "prefetch": 0, "dtype": "f16",
     "schedule": "fuzz", "schedule_params": {"seed": 7}},
    {"batch": 3, "heads": 4, "kv_heads": 1, "seqlen_q": 40, "head_dim": 64, "max_context": 144,
     "context_len": 130, "paged": True, "page_size": 16, "dtype": "f16",
     "kv_dtype": "fp8_e4m3fnuz", "schedule": "attn_basic"},
    {"batch": 3, "heads": 2, "kv_heads": 1, "seqlen_q": 37, "head_dim": 64, "max_context": 144,
     "context_len": 130, "paged": True, "page_size": 16, "dtype": "f16",
     "kv_dtype": "fp8_e4m3fnuz", "kv_scale": "token", "schedule": "attn_basic"},
)
