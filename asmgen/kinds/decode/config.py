"""The frozen, validated ``DecodeConfig`` of one decode-attention kernel (flash decoding).

One workgroup (one wave) computes, for one sequence ``b``, one KV head and one KV split, the
attention of up to 32 query rows: the ``q_tokens`` x ``group`` (= heads / kv_heads) rows of that KV
head's query heads packed into the N of the 32x32xK MFMA (row r = token r // group, head
kv_head * group + r % group), so GQA reads each K/V row once for the whole group. More rows than
32 take ``row_blocks`` workgroups. Grid: x = split, y = kv_head * row_blocks + row block,
z = batch (a runtime scalar).

Lengths: ``context_lens[b]`` (int32, a buffer) is the KV length of sequence b, counting its
``q_tokens`` new tokens (already in the cache): token t sees keys j <= context_lens[b] - q_tokens
+ t (speculative decoding is causal among the new tokens). Values outside 0..``max_context`` are
refused at launch for host arrays (a typed ``LaunchError``) and clamped by the kernel otherwise; a token that sees no key gets O = 0 and LSE = -inf. The keys split into
``num_splits`` ranges of whole 32-key blocks (ceil(blocks / num_splits) each); with one split
the kernel writes ``o`` and ``lse``, with more it writes each split's normalised partial O
(in ``dtype``) and LSE to ``o_partial`` / ``lse_partial`` and the ``decode_combine`` kernel
merges them (``asmgen.kinds.decode.splits`` says why and how many).

KV caches: dense ``[batch, max_context, kv_heads, head_dim]`` (FlashAttention's KV-cache layout),
or paged ``[num_blocks, page_size, kv_heads, head_dim]`` (vLLM's) with ``block_table [batch,
max_blocks_per_seq]`` int32 page numbers. ``kv_dtype`` (default ``dtype``) may be the arch's fp8
(``KV_FP8``: E4M3FNUZ on gfx942, OCP E4M3 on gfx950): the caches hold one byte per element,
dequantised to ``dtype`` in registers, with f32 ``k_scale`` / ``v_scale``: per tensor (``kv_scale``
"tensor", two scalars) or per token and KV head (``kv_scale`` "token", AITER's per-token layout:
paged ``[num_blocks, kv_heads, page_size]``, dense ``[batch, kv_heads, max_context]``). Every limit
raises ``ConfigError`` naming the value and the limit.
"""
from __future__ import annotations

from dataclasses import dataclass

from ...target import DEFAULT_ARCH
from ..attention.lds import BLOCK_K, BLOCK_Q
from ..common.serving import (  # noqa: F401  (the serving limits, re-exported)
    BATCH_MAX,
    BUFFER_BYTES_MAX,
    CONTEXT_MAX,
    HEADS_MAX,
    KV_FP8,
    KV_SCALES,
    PAGE_SIZES,
    ServingConfig,
    int_in,
    prefetch_default,
)

Q_TOKENS_MAX = 16
SPLITS_MAX = 256


def _int(name: str, value, lo: int, hi: int) -> int:
    return int_in("decode", name, value, lo, hi)


@dataclass(frozen=True, slots=True)
class DecodeConfig(ServingConfig):
    """One decode kernel: O = softmax(Q K^T * scale, causal among the new tokens) V, plus LSE."""

    batch: int = 1                   # default of the runtime ``batch`` scalar (the grid's z)
    heads: int = 8
    kv_heads: int | None = None      # default: heads (MHA); divides heads (GQA)
    q_tokens: int = 1                # new tokens per sequence (1..16, speculative decoding)
    head_dim: int = 128
    dtype: str = "bf16"
    arch: str = DEFAULT_ARCH
    scale: float | None = None       # default 1 / sqrt(head_dim)
    max_context: int = 256           # dense: the cache's second dim; paged: pages x page_size
    context_len: int | None = None   # the lengths the split count is chosen for (default max)
    num_splits: int | None = None    # KV splits; default: ``splits.choose_splits``
    paged: bool = False
    page_size: int = 16              # paged only
    num_blocks: int | None = None    # paged: pages in the pool (default: batch x pages per seq)
    mfma_k: int | None = None        # K of the 32x32xK MFMA; default: the arch's native
    prefetch: int | None = None      # key blocks loaded one iteration ahead (0 or 1); default
    #                                  1, but 0 with per-token scales at head_dim 128 on pages
    #                                  of 32+ keys (``prefetch_default``)
    kv_dtype: str | None = None      # K/V cache element type; default dtype; or an fp8 (KV_FP8)
    kv_scale: str = "tensor"         # fp8 KV: k_scale/v_scale per tensor or per (token, kv head)

    def __post_init__(self) -> None:
        st = object.__setattr__
        self._check_types()
        _int("q_tokens", self.q_tokens, 1, Q_TOKENS_MAX)
        self._check_cache()
        if self.context_len is None:
            st(self, "context_len", self.max_context)
        _int("context_len", self.context_len, 0, self.max_context)
        self._check_mfma()
        if self.num_splits is None:
            from .splits import choose_splits
            st(self, "num_splits", choose_splits(self.batch, self.kv_heads * self.row_blocks,
                                                 self.context_len, self.target.cu_count))
        _int("num_splits", self.num_splits, 1, min(SPLITS_MAX, self.max_kv_blocks))
        self._check_scale()

    KIND = "decode"

    # -- geometry (the shared part: ``ServingConfig``) ------------------------------------------
    @property
    def rows(self) -> int:
        """Query rows of one KV head and sequence: q_tokens x group."""
        return self.q_tokens * self.group

    @property
    def row_blocks(self) -> int:
        return -(-self.rows // BLOCK_Q)

    @property
    def max_kv_blocks(self) -> int:
        """32-key blocks of the longest sequence."""
        return -(-self.max_context // BLOCK_K)

    @property
    def grid(self) -> tuple[int, int, int]:
        return (self.num_splits, self.kv_heads * self.row_blocks, self.batch)

    @property
    def name(self) -> str:
        g, kv = self.name_parts()
        return (f"attn_decode_{self.arch}_{self.dtype}_d{self.head_dim}_h{self.heads}{g}"
                f"_t{self.q_tokens}_c{self.max_context}{kv}_s{self.num_splits}_k{self.mfma_k}"
                f"{'' if self.prefetch else '_pf0'}")
