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

from dataclasses import asdict, dataclass

from ...dtypes import DType, dtype_of
from ...errors import ConfigError
from ...target import ARCHES, DEFAULT_ARCH, IN_DTYPES, Target, target_of
from ..attention.config import HEAD_DIMS, mfma_ks, softmax_scale
from ..attention.lds import BLOCK_K, BLOCK_Q, v_bytes
from ..decode.config import BUFFER_BYTES_MAX, CONTEXT_MAX, PAGE_SIZES

HEADS_MAX = 256          # the kv-head division (decode.arith.sdiv) keeps n < 2^16
BATCH_MAX = 1 << 16
TOTAL_Q_MAX = 1 << 20    # packed new tokens: the SALU row products stay below 2^31 (heads <= 256)


def _int(name: str, value, lo: int, hi: int) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or not lo <= value <= hi:
        raise ConfigError(f"extend {name}={value!r} is outside {lo}..{hi}")
    return value


@dataclass(frozen=True, slots=True)
class ExtendConfig:
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
    prefetch: int = 1                # key blocks loaded one iteration ahead (0 or 1)

    def __post_init__(self) -> None:
        st = object.__setattr__
        if self.arch not in ARCHES:
            raise ConfigError(f"extend arch={self.arch!r} is not one of {ARCHES}")
        if self.dtype not in IN_DTYPES:
            raise ConfigError(f"extend dtype={self.dtype!r} is not one of {IN_DTYPES}")
        if self.head_dim not in HEAD_DIMS:
            raise ConfigError(f"extend head_dim={self.head_dim!r} is not one of {HEAD_DIMS}")
        _int("batch", self.batch, 1, BATCH_MAX)
        _int("heads", self.heads, 1, HEADS_MAX)
        if self.kv_heads is None:
            st(self, "kv_heads", self.heads)
        _int("kv_heads", self.kv_heads, 1, self.heads)
        if self.heads % self.kv_heads:
            raise ConfigError(f"extend kv_heads={self.kv_heads} does not divide "
                              f"heads={self.heads}")
        _int("max_context", self.max_context, 1, CONTEXT_MAX)
        _int("seqlen_q", self.seqlen_q, 1, self.max_context)
        if self.batch * self.seqlen_q > TOTAL_Q_MAX:
            raise ConfigError(f"extend batch x seqlen_q = {self.batch * self.seqlen_q} packed "
                              f"tokens exceed {TOTAL_Q_MAX}")
        if not isinstance(self.paged, bool):
            raise ConfigError(f"extend paged={self.paged!r} is not a bool")
        if self.paged:
            if self.page_size not in PAGE_SIZES:
                raise ConfigError(f"extend page_size={self.page_size!r} is not one of "
                                  f"{PAGE_SIZES}")
            if self.max_context % self.page_size:
                raise ConfigError(f"extend max_context={self.max_context} is not a multiple of "
                                  f"page_size={self.page_size} (max_blocks_per_seq pages)")
            if self.num_blocks is None:
                st(self, "num_blocks", self.batch * self.max_blocks_per_seq)
            _int("num_blocks", self.num_blocks, 1, BUFFER_BYTES_MAX // self.page_bytes)
        elif self.num_blocks is not None:
            raise ConfigError(f"extend num_blocks={self.num_blocks!r} applies to paged=True only")
        elif self.batch * self.max_context * self.kv_row_bytes > BUFFER_BYTES_MAX:
            raise ConfigError(f"extend dense KV cache {self.batch}x{self.max_context}x"
                              f"{self.kv_row_bytes} bytes exceeds the 4 GiB of a buffer "
                              f"resource (cdna-facts section 5); use paged=True")
        if self.context_len is None:
            st(self, "context_len", self.max_context)
        _int("context_len", self.context_len, self.seqlen_q, self.max_context)
        if self.mfma_k is None:
            st(self, "mfma_k", mfma_ks(self.arch, self.dtype)[0])
        if self.mfma_k not in mfma_ks(self.arch, self.dtype):
            raise ConfigError(f"extend mfma_k={self.mfma_k!r} is not available on {self.arch} "
                              f"(32x32xK with K in {mfma_ks(self.arch, self.dtype)})")
        _int("prefetch", self.prefetch, 0, 1)
        st(self, "scale", softmax_scale("extend", self.scale, self.head_dim))

    # -- geometry (the names decode's DenseKV / PagedKV / cache_loop read) -----------------------
    @property
    def target(self) -> Target:
        return target_of(self.arch)

    @property
    def in_type(self) -> DType:
        return dtype_of(self.dtype)

    @property
    def kv_type(self) -> DType:
        """The caches' element type (``dtype``: an fp8 cache is not built for extend)."""
        return dtype_of(self.dtype)

    kv_fp8 = False

    @property
    def kv_dtype(self) -> str:
        return self.dtype

    @property
    def group(self) -> int:
        return self.heads // self.kv_heads

    @property
    def kv_row_bytes(self) -> int:
        """Bytes between two keys of one head in the cache: kv_heads x head_dim elements."""
        return self.kv_type.nbytes(self.kv_heads * self.head_dim)

    @property
    def max_blocks_per_seq(self) -> int:
        return -(-self.max_context // self.page_size)

    @property
    def page_bytes(self) -> int:
        return self.page_size * self.kv_row_bytes

    @property
    def grid(self) -> tuple[int, int, int]:
        """(heads, batch, Q-blocks): the causal varlen grid (``attention.grid``)."""
        from ..attention.grid import grid
        return grid(True, self.batch, self.heads, self.seqlen_q, BLOCK_Q)

    threads = 64
    waves = 1
    rows_per_wg = BLOCK_Q
    block_q = BLOCK_Q
    block_k = BLOCK_K
    # what the shared attention helpers (softmax, vtile, kvloop) read of a config: one wave,
    # one V^T buffer, causal, a per-element key mask in the masked body
    causal = True
    key_mask = True
    kv_buffers = 1
    varlen = True

    @property
    def k_per_lane(self) -> int:
        return self.mfma_k * BLOCK_Q // self.target.wave_size

    @property
    def mfma(self) -> str:
        return f"v_mfma_f32_32x32x{self.mfma_k}_{self.dtype}"

    @property
    def lds_bytes(self) -> int:
        return v_bytes(self.head_dim)

    @property
    def name(self) -> str:
        g = f"_g{self.group}" if self.group > 1 else ""
        kv = f"_paged{self.page_size}" if self.paged else ""
        return (f"attn_extend_{self.arch}_{self.dtype}_d{self.head_dim}_h{self.heads}{g}"
                f"_c{self.max_context}{kv}_k{self.mfma_k}{'' if self.prefetch else '_pf0'}")

    def to_dict(self) -> dict:
        return asdict(self)
