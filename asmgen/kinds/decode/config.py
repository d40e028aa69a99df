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
clamped to it; a token that sees no key gets O = 0 and LSE = -inf. The keys split into
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

from dataclasses import asdict, dataclass

from ...dtypes import DTYPES, DType, dtype_of
from ...errors import ConfigError
from ...target import ARCHES, DEFAULT_ARCH, IN_DTYPES, Target, target_of
from ..attention.config import HEAD_DIMS, mfma_ks, softmax_scale
from ..attention.lds import BLOCK_K, BLOCK_Q, v_bytes

Q_TOKENS_MAX = 16
HEADS_MAX = 256
BATCH_MAX = 1 << 16
CONTEXT_MAX = 1 << 20
SPLITS_MAX = 256
PAGE_SIZES = (16, 32, 64, 128, 256)
BUFFER_BYTES_MAX = (1 << 32) - 1     # num_records is 32 bits (cdna-facts section 5)
KV_FP8 = ("fp8_e4m3fnuz", "fp8_e4m3")  # fp8 KV caches (the arch's row of asmgen.dtypes decides)
KV_SCALES = ("tensor", "token")        # fp8 K/V scale granularity (``kv_scale``)


def prefetch_default(cfg) -> int:
    """1, except per-token scales at head_dim 128 on pages of 32 keys or more: their 32
    prefetched scale VGPRs do not fit in 256 beside D = 128's there (the allocator finds no
    aligned range at a 250-register peak; dense and 16-key pages fit: 248 and 256, measured
    on both arches with the default recipe)."""
    big_pages = cfg.paged and cfg.page_size > 16
    return 0 if cfg.token_scales and cfg.head_dim == 128 and big_pages else 1


def _int(name: str, value, lo: int, hi: int) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or not lo <= value <= hi:
        raise ConfigError(f"decode {name}={value!r} is outside {lo}..{hi}")
    return value


@dataclass(frozen=True, slots=True)
class DecodeConfig:
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
        if self.arch not in ARCHES:
            raise ConfigError(f"decode arch={self.arch!r} is not one of {ARCHES}")
        if self.dtype not in IN_DTYPES:
            raise ConfigError(f"decode dtype={self.dtype!r} is not one of {IN_DTYPES}")
        if self.kv_dtype is None:
            st(self, "kv_dtype", self.dtype)
        if self.kv_dtype != self.dtype:
            if self.kv_dtype not in KV_FP8:
                raise ConfigError(f"decode kv_dtype={self.kv_dtype!r} is not dtype={self.dtype!r}"
                                  f" nor one of {KV_FP8}")
            if self.arch not in DTYPES[self.kv_dtype].arches:
                have = tuple(n for n in KV_FP8 if self.arch in DTYPES[n].arches)
                raise ConfigError(f"decode kv_dtype={self.kv_dtype!r} is not available on "
                                  f"{self.arch} (its fp8 KV dtypes: {have})")
        if self.kv_scale not in KV_SCALES:
            raise ConfigError(f"decode kv_scale={self.kv_scale!r} is not one of {KV_SCALES}")
        if self.kv_scale != "tensor" and self.kv_dtype == self.dtype:
            raise ConfigError(f"decode kv_scale={self.kv_scale!r} applies to an fp8 kv_dtype "
                              f"{KV_FP8} only (kv_dtype={self.kv_dtype!r})")
        if self.head_dim not in HEAD_DIMS:
            raise ConfigError(f"decode head_dim={self.head_dim!r} is not one of {HEAD_DIMS}")
        _int("batch", self.batch, 1, BATCH_MAX)
        _int("heads", self.heads, 1, HEADS_MAX)
        if self.kv_heads is None:
            st(self, "kv_heads", self.heads)
        _int("kv_heads", self.kv_heads, 1, self.heads)
        if self.heads % self.kv_heads:
            raise ConfigError(f"decode kv_heads={self.kv_heads} does not divide "
                              f"heads={self.heads}")
        _int("q_tokens", self.q_tokens, 1, Q_TOKENS_MAX)
        _int("max_context", self.max_context, 1, CONTEXT_MAX)
        if not isinstance(self.paged, bool):
            raise ConfigError(f"decode paged={self.paged!r} is not a bool")
        if self.paged:
            if self.page_size not in PAGE_SIZES:
                raise ConfigError(f"decode page_size={self.page_size!r} is not one of "
                                  f"{PAGE_SIZES}")
            if self.max_context % self.page_size:
                raise ConfigError(f"decode max_context={self.max_context} is not a multiple of "
                                  f"page_size={self.page_size} (max_blocks_per_seq pages)")
            if self.num_blocks is None:
                st(self, "num_blocks", self.batch * self.max_blocks_per_seq)
            _int("num_blocks", self.num_blocks, 1, BUFFER_BYTES_MAX // self.page_bytes)
        elif self.num_blocks is not None:
            raise ConfigError(f"decode num_blocks={self.num_blocks!r} applies to paged=True only")
        elif self.token_scales and self.max_context % 4:
            # the scales load 4 keys at a time: a group straddling the buffer's end is range
            # checked per dword (cdna-facts section 5), but its bytes would pass the allocation's
            # end, which the emulator refuses; a multiple of 4 keeps every group inside
            raise ConfigError(f"decode max_context={self.max_context} is not a multiple of 4, "
                              f"which dense per-token scales (kv_scale='token') need")
        elif self.batch * self.max_context * self.kv_row_bytes > BUFFER_BYTES_MAX:
            raise ConfigError(f"decode dense KV cache {self.batch}x{self.max_context}x"
                              f"{self.kv_row_bytes} bytes exceeds the 4 GiB of a buffer "
                              f"resource (cdna-facts section 5); use paged=True")
        if self.context_len is None:
            st(self, "context_len", self.max_context)
        _int("context_len", self.context_len, 0, self.max_context)
        if self.mfma_k is None:
            st(self, "mfma_k", mfma_ks(self.arch, self.dtype)[0])
        if self.mfma_k not in mfma_ks(self.arch, self.dtype):
            raise ConfigError(f"decode mfma_k={self.mfma_k!r} is not available on {self.arch} "
                              f"(32x32xK with K in {mfma_ks(self.arch, self.dtype)})")
        if self.prefetch is None:
            st(self, "prefetch", prefetch_default(self))
        _int("prefetch", self.prefetch, 0, 1)
        if self.num_splits is None:
            from .splits import choose_splits
            st(self, "num_splits", choose_splits(self.batch, self.kv_heads * self.row_blocks,
                                                 self.context_len, self.target.cu_count))
        _int("num_splits", self.num_splits, 1, min(SPLITS_MAX, self.max_kv_blocks))
        st(self, "scale", softmax_scale("decode", self.scale, self.head_dim))

    # -- geometry -------------------------------------------------------------------------------
    @property
    def target(self) -> Target:
        return target_of(self.arch)

    @property
    def in_type(self) -> DType:
        return dtype_of(self.dtype)

    @property
    def kv_type(self) -> DType:
        """The K/V caches' element type."""
        return dtype_of(self.kv_dtype)

    @property
    def kv_fp8(self) -> bool:
        """fp8 caches: bytes dequantised in registers, k_scale / v_scale applied."""
        return self.kv_dtype != self.dtype

    @property
    def token_scales(self) -> bool:
        """Per-token k_scale / v_scale buffers (applied to the scores and to P per key)."""
        return self.kv_scale == "token"

    @property
    def group(self) -> int:
        """Query heads per KV head (GQA group)."""
        return self.heads // self.kv_heads

    @property
    def rows(self) -> int:
        """Query rows of one KV head and sequence: q_tokens x group."""
        return self.q_tokens * self.group

    @property
    def row_blocks(self) -> int:
        return -(-self.rows // BLOCK_Q)

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
    def max_kv_blocks(self) -> int:
        """32-key blocks of the longest sequence."""
        return -(-self.max_context // BLOCK_K)

    @property
    def grid(self) -> tuple[int, int, int]:
        return (self.num_splits, self.kv_heads * self.row_blocks, self.batch)

    threads = 64
    waves = 1
    block_q = BLOCK_Q
    block_k = BLOCK_K
    # what the shared attention helpers (softmax, vtile, kvloop) read of a config: one wave,
    # one V^T buffer, causal (the new tokens), a per-element key mask in the masked body
    causal = True
    key_mask = True
    kv_buffers = 1

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
        if self.kv_fp8:
            kv += f"_kv{self.kv_dtype}" + ("_tok" if self.token_scales else "")
        return (f"attn_decode_{self.arch}_{self.dtype}_d{self.head_dim}_h{self.heads}{g}"
                f"_t{self.q_tokens}_c{self.max_context}{kv}_s{self.num_splits}_k{self.mfma_k}"
                f"{'' if self.prefetch else '_pf0'}")

    def to_dict(self) -> dict:
        return asdict(self)
