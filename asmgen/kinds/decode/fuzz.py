"""Fuzzing the decode kind: the hypothesis strategy of valid ``DecodeConfig``s (contexts 1..130
or 260 aligned to the 32-key block, one off, or any; dense or paged with pages of 16, 32, 64;
MHA/GQA, 1..16 query tokens, 1..4 splits, both dtypes, head dims and arches, prefetch 0/1, KV
caches in ``dtype`` or the arch's fp8 with per-tensor or per-token scales), the
shrink moves of a failing config and the kernels of the mutation proof (``proof_kernels``)."""
from __future__ import annotations

from hypothesis import reject
from hypothesis import strategies as st

from ...dtypes import DTYPES
from ...errors import ConfigError
from ...target import ARCHES, CDNA4, DEFAULT_ARCH
from ..attention.config import HEAD_DIMS
from .config import BLOCK_K, KV_FP8, DecodeConfig


def _length(draw, hi: int) -> int:
    kind = draw(st.sampled_from(("aligned", "off_by_one", "any")))
    if kind == "aligned":
        return BLOCK_K * draw(st.integers(1, hi // BLOCK_K))
    if kind == "off_by_one":
        return BLOCK_K * draw(st.integers(1, hi // BLOCK_K)) + draw(st.sampled_from((-1, 1)))
    return draw(st.integers(1, hi))


def draw_cache(draw, arch: str, maxc: int) -> tuple[int, dict]:
    """(max_context, config keywords) of a drawn KV cache (decode and extend): dense or paged
    with pages of 16, 32, 64 (max_context rounded up to whole pages), in ``dtype`` or the arch's
    fp8 with per-tensor or per-token scales."""
    extra = {}
    if draw(st.booleans()):
        page = draw(st.sampled_from((16, 32, 64)))
        maxc = -(-maxc // page) * page
        extra = {"paged": True, "page_size": page}
    fp8 = [n for n in KV_FP8 if arch in DTYPES[n].arches]
    extra["kv_dtype"] = draw(st.sampled_from([None, *fp8]))
    if extra["kv_dtype"] is not None:
        extra["kv_scale"] = draw(st.sampled_from(("tensor", "token")))
    return maxc, extra


@st.composite
def decode_configs(draw, small: bool = True, arches=ARCHES) -> DecodeConfig:
    arch = draw(st.sampled_from(tuple(arches)))
    heads = draw(st.sampled_from((1, 2, 4, 6, 8)))
    kv_heads = draw(st.sampled_from([d for d in range(1, heads + 1) if heads % d == 0]))
    ctx = _length(draw, 130 if small else 260)
    maxc, extra = draw_cache(draw, arch, ctx)
    blocks = -(-maxc // BLOCK_K)
    try:
        return DecodeConfig(
            batch=draw(st.integers(1, 2)), heads=heads, kv_heads=kv_heads,
            q_tokens=draw(st.sampled_from((1, 2, 3, 5, 16))),
            head_dim=draw(st.sampled_from(HEAD_DIMS)), dtype=draw(st.sampled_from(("f16", "bf16"))),
            arch=arch, max_context=maxc, context_len=ctx,
            num_splits=draw(st.integers(1, min(4, blocks))),
            prefetch=draw(st.sampled_from((0, 1))), **extra)
    except ConfigError:
        reject()


def to_raw(cfg) -> dict:
    """A serving config (decode or extend) as drawn: the defaults (scale 1/sqrt(D), the arch's
    native mfma_k, KV in dtype, the batch's pages) back to None so they follow a shrink."""
    d = cfg.to_dict()
    if d["scale"] == 1.0 / cfg.head_dim ** 0.5:
        d["scale"] = None
    d["mfma_k"] = None if d["mfma_k"] == type(cfg)(arch=cfg.arch, dtype=cfg.dtype).mfma_k \
        else d["mfma_k"]
    if d["kv_dtype"] == cfg.dtype:
        d["kv_dtype"] = None
    if cfg.paged and d["num_blocks"] == cfg.batch * cfg.max_blocks_per_seq:
        d["num_blocks"] = None
    return d


def candidates(raw: dict):
    """Smaller variants, most aggressive first: shorter contexts, one split, fewer tokens and
    heads, batch 1, D 64, dense, then the defaults (prefetch 1, f16, KV in dtype, gfx942)."""
    page = raw["page_size"] if raw["paged"] else 1
    for val in sorted({1, 32, 33, raw["context_len"] // 2, raw["context_len"] - 1}):
        if 1 <= val < raw["context_len"]:
            maxc = max(page, -(-val // page) * page)
            yield {**raw, "context_len": val, "max_context": maxc,
                   "num_splits": min(raw["num_splits"], -(-maxc // BLOCK_K)),
                   "num_blocks": None}
    for key, val in (("num_splits", 1), ("q_tokens", 1), ("batch", 1), ("head_dim", 64),
                     ("prefetch", 1), ("dtype", "f16"), ("kv_scale", "tensor"),
                     ("kv_dtype", None)):
        if raw.get(key, "tensor") != val:
            yield {**raw, key: val, "mfma_k": None,
                   **({"kv_scale": "tensor"} if key == "kv_dtype" else {})}
    yield from cache_candidates(raw)


def cache_candidates(raw: dict):
    """The last shrink moves of a serving config (decode and extend): fewer heads (one, or one
    GQA group), a dense cache, the default arch (its KV in dtype)."""
    if raw["heads"] > 1:
        yield {**raw, "heads": 1, "kv_heads": 1}
        if raw["kv_heads"] < raw["heads"]:
            yield {**raw, "heads": raw["heads"] // raw["kv_heads"], "kv_heads": 1}
    if raw["paged"]:
        yield {**raw, "paged": False, "num_blocks": None}
    if raw["arch"] != DEFAULT_ARCH:
        yield {**raw, "arch": DEFAULT_ARCH, "mfma_k": None, "kv_dtype": None,
               "kv_scale": "tensor"}


# Decode proof kernels: both arches, dense and paged (16-key pages: two pages per block and the
# per-lane page select; 64-key pages), GQA with several tokens (the causal mask of the last
# blocks), split (partial outputs) and not, the attention recipes and a fuzzed order. Each walks
# at least 3 key blocks with a partial last one. bf16 only on CDNA4: gfx942's bf16 rounding
# (v_bfe_u32 + v_add3_u32) swapped with its neighbour reads the other half's rounding bit, a
# sub-ulp change no tolerance-based check can see (the attention proof kernels avoid it too).
# The fourth reads an fp8 KV cache (the dequant's converts and packs, k_scale / v_scale); the
# fifth per-token scales (their loads, the deferred v-scale prefetch, the score and P products).
PROOF_KERNELS = (
    {"heads": 4, "kv_heads": 2, "q_tokens": 3, "head_dim": 64, "max_context": 112,
     "context_len": 100, "paged": True, "page_size": 16, "num_splits": 1, "dtype": "f16",
     "schedule": "attn_basic"},
    {"heads": 2, "kv_heads": 1, "q_tokens": 2, "head_dim": 64, "max_context": 130,
     "num_splits": 2, "dtype": "bf16", "arch": CDNA4, "schedule": "attn_interleave"},
    {"heads": 2, "q_tokens": 1, "head_dim": 128, "max_context": 192, "context_len": 161,
     "paged": True, "page_size": 64, "num_splits": 1, "prefetch": 0, "dtype": "f16",
     "schedule": "fuzz",
     "schedule_params": {"seed": 7}},
    {"heads": 4, "kv_heads": 1, "q_tokens": 2, "head_dim": 64, "max_context": 112,
     "context_len": 100, "paged": True, "page_size": 16, "num_splits": 1, "dtype": "f16",
     "kv_dtype": "fp8_e4m3fnuz", "schedule": "attn_basic"},
    {"heads": 2, "kv_heads": 1, "q_tokens": 2, "head_dim": 64, "max_context": 112,
     "context_len": 100, "paged": True, "page_size": 16, "num_splits": 1, "dtype": "f16",
     "kv_dtype": "fp8_e4m3fnuz", "kv_scale": "token", "prefetch": 1, "schedule": "attn_basic"},
)


@st.composite
def combine_configs(draw, small: bool = True, arches=ARCHES):
    """A valid ``CombineConfig`` (the merge of 1..8 splits)."""
    from .merge import CombineConfig
    return CombineConfig(batch=draw(st.integers(1, 2)), heads=draw(st.integers(1, 8)),
                         q_tokens=draw(st.sampled_from((1, 3, 16))),
                         head_dim=draw(st.sampled_from(HEAD_DIMS)),
                         dtype=draw(st.sampled_from(("f16", "bf16"))),
                         num_splits=draw(st.integers(1, 8)),
                         arch=draw(st.sampled_from(tuple(arches))))


def combine_candidates(raw: dict):
    for key, val in (("num_splits", 1), ("num_splits", 2), ("batch", 1), ("heads", 1),
                     ("q_tokens", 1), ("head_dim", 64), ("dtype", "f16"), ("arch", DEFAULT_ARCH)):
        if raw[key] != val and (key != "num_splits" or val < raw[key]):
            yield {**raw, key: val}


# Combine proof kernels: several splits (the loop), partial last workgroup of rows, both arches.
COMBINE_PROOF_KERNELS = (
    {"batch": 2, "heads": 5, "q_tokens": 3, "head_dim": 64, "dtype": "f16", "num_splits": 4,
     "schedule": "attn_basic"},
    {"batch": 1, "heads": 3, "q_tokens": 2, "head_dim": 128, "dtype": "bf16", "num_splits": 3,
     "arch": CDNA4, "schedule": "fuzz", "schedule_params": {"seed": 2}},
)
