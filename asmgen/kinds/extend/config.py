"""The frozen, validated ``ExtendConfig`` of one extend-attention kernel.

Extend (prefix caching, chunked prefill): sequence b has ``q_len(b)`` = cu_seqlens_q[b + 1] -
cu_seqlens_q[b] new tokens, packed heads-major like varlen prefill (``q`` / ``o`` ``[heads,
total_q, head_dim]``, ``lse`` ``[heads, total_q]``), whose K/V are already written into the KV
cache behind the cached prefix (vLLM's convention): the keys of sequence b are cache rows
0 .. context_lens[b] - 1 and new token t (0-based) sees keys j <= context_lens[b] - q_len(b) + t
(causal, bottom-right). The cache is dense ``[batch, max_context, kv_heads, head_dim]`` or
paged ``[num_blocks, page_size, kv_heads, head_dim]`` with ``block_table [batch,
max_blocks_per_seq]`` (the decode kind's layouts, read by its ``DenseKV`` / ``PagedKV``).

One workgroup is one wave of 32 query rows (the MFMA's N) of one (sequence, head); the grid is
the causal varlen one, (heads, batch, Q-blocks of ``seqlen_q`` = max_seqlen_q, longest first).
Sizes baked in: heads, kv_heads, head_dim, the cache geometry (max_context, page_size); runtime:
batch, total_q, max_seqlen_q (the grid), num_blocks, the lengths (buffers). Every limit raises
``ConfigError`` naming the value and the limit.
"""
from __future__ import annotations

from dataclasses import dataclass

from ...errors import ConfigError
from ...target import DEFAULT_ARCH
from ..attention.lds import BLOCK_K, BLOCK_Q  # noqa: F401  (re-exported)
from ..common.serving import (  # noqa: F401  (HEADS_MAX re-exported)
    HEADS_MAX,
    ServingConfig,
    int_in,
    prefetch_default,
)

TOTAL_Q_MAX = 1 << 20    # packed new tokens: the SALU row products stay below 2^31 (heads <= 256)


def _int(name: str, value, lo: int, hi: int) -> int:
    return int_in("extend", name, value, lo, hi)


@dataclass(frozen=True, slots=True)
class ExtendConfig(ServingConfig):
    """One extend kernel: O = softmax(Q K^T * scale, causal bottom-right per sequence) V, LSE."""

    batch: int = 1                   # default of the runtime ``batch`` scalar (the grid's y)
    heads: int = 8
    kv_heads: int | None = None      # default: heads (MHA); divides heads (GQA)
    seqlen_q: int = 64               # the generated max_seqlen_q (new tokens per sequence)
    max_context: int = 256           # dense: the cache's second dim; paged: pages x page_size
    context_len: int | None = None   # the generated sequences' keys (default max_context)
    head_dim: int = 128
    dtype: str = "bf16"
    arch: str = DEFAULT_ARCH
    scale: float | None = None       # default 1 / sqrt(head_dim)
    paged: bool = False
    page_size: int = 16              # paged only
    num_blocks: int | None = None    # paged: pages in the pool (default: batch x pages per seq)
    mfma_k: int | None = None        # K of the 32x32xK MFMA; default: the arch's native
    prefetch: int | None = None      # key blocks loaded one iteration ahead (0 or 1); default
    #                                  1, but 0 with per-token scales at head_dim 128 on pages
    #                                  of 32+ keys (``common.serving.prefetch_default``)
    kv_dtype: str | None = None      # K/V cache element type; default dtype; or an fp8 (KV_FP8)
    kv_scale: str = "tensor"         # fp8 KV: k_scale/v_scale per tensor or per (token, kv head)

    KIND = "extend"

    def __post_init__(self) -> None:
        st = object.__setattr__
        self._check_types()
        _int("seqlen_q", self.seqlen_q, 1, self.max_context)
        if self.batch * self.seqlen_q > TOTAL_Q_MAX:
            raise ConfigError(f"extend batch x seqlen_q = {self.batch * self.seqlen_q} packed "
                              f"tokens exceed {TOTAL_Q_MAX}")
        self._check_cache()
        if self.context_len is None:
            st(self, "context_len", self.max_context)
        _int("context_len", self.context_len, self.seqlen_q, self.max_context)
        self._check_mfma()
        self._check_scale()

    def _prefetch_default(self) -> int:
        """decode's rule (``common.serving.prefetch_default``), and 0 also with per-token scales
        at head_dim 128 on 16-key pages with the x16 MFMA (gfx950): the extend kernel's causal
        limit and Q-block registers leave no aligned 4-register range at a 249-register peak
        there (measured with the default recipe; gfx942's x8 MFMA fits)."""
        tight = (self.token_scales and self.head_dim == 128 and self.paged
                 and self.mfma_k == 16)
        return 0 if tight else prefetch_default(self)

    # -- geometry (the shared part, the names decode's DenseKV / PagedKV / cache_loop read:
    # ``ServingConfig``) -------------------------------------------------------------------------
    @property
    def grid(self) -> tuple[int, int, int]:
        """(heads, batch, Q-blocks): the causal varlen grid (``attention.grid``)."""
        from ..attention.grid import grid
        return grid(True, self.batch, self.heads, self.seqlen_q, BLOCK_Q)

    rows_per_wg = BLOCK_Q
    varlen = True

    @property
    def name(self) -> str:
        g, kv = self.name_parts()
        return (f"attn_extend_{self.arch}_{self.dtype}_d{self.head_dim}_h{self.heads}{g}"
                f"_c{self.max_context}{kv}_k{self.mfma_k}{'' if self.prefetch else '_pf0'}")
