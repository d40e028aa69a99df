"""The serving configs' shared base (``decode`` and ``extend``: one wave of 32 query rows over a
dense or paged KV cache): their limits, the validation of the fields they share and the geometry
the shared loop (``decode.body.cache_loop``, ``DenseKV`` / ``PagedKV``, ``kvscale``) and the
attention helpers (softmax, vtile, kvloop) read.

``ServingConfig`` is a mixin of frozen dataclasses that declare the fields it names: batch,
heads, kv_heads, head_dim, dtype, arch, scale, max_context, context_len, paged, page_size,
num_blocks, mfma_k, prefetch, kv_dtype, kv_scale; ``KIND`` names the kind in every
``ConfigError`` (the value and the limit). KV caches: dense ``[batch, max_context, kv_heads,
head_dim]`` or paged ``[num_blocks, page_size, kv_heads, head_dim]``; ``kv_dtype`` is ``dtype``
or the arch's fp8 (``KV_FP8``: E4M3FNUZ on gfx942, OCP E4M3 on gfx950) with f32 ``k_scale`` /
``v_scale`` per tensor or per (token, KV head) (``kv_scale``).
"""
from __future__ import annotations

from dataclasses import asdict

from ...dtypes import DTYPES, DType, dtype_of
from ...errors import ConfigError
from ...target import ARCHES, IN_DTYPES
from ..attention.config import HEAD_DIMS, mfma_ks, softmax_scale
from ..attention.lds import BLOCK_K, BLOCK_Q, v_bytes
from .arch import ArchTyped

HEADS_MAX = 256                      # the kv-head division (decode.arith.sdiv) keeps n < 2^16
BATCH_MAX = 1 << 16
CONTEXT_MAX = 1 << 20
PAGE_SIZES = (16, 32, 64, 128, 256)
BUFFER_BYTES_MAX = (1 << 32) - 1     # num_records is 32 bits (cdna-facts section 5)
KV_FP8 = ("fp8_e4m3fnuz", "fp8_e4m3")  # fp8 KV caches (the arch's row of asmgen.dtypes decides)
KV_SCALES = ("tensor", "token")        # fp8 K/V scale granularity (``kv_scale``)


def int_in(kind: str, name: str, value, lo: int, hi: int) -> int:
    """``value`` when it is an int in lo..hi, else a ConfigError naming both."""
    if not isinstance(value, int) or isinstance(value, bool) or not lo <= value <= hi:
        raise ConfigError(f"{kind} {name}={value!r} is outside {lo}..{hi}")
    return value


def prefetch_default(cfg) -> int:
    """1, except per-token scales at head_dim 128 on pages of 32 keys or more: their 32
    prefetched scale VGPRs do not fit in 256 beside D = 128's there (the allocator finds no
    aligned range at a 250-register peak; dense and 16-key pages fit: 248 and 256, measured
    on both arches with the default recipe)."""
    big_pages = cfg.paged and cfg.page_size > 16
    return 0 if cfg.token_scales and cfg.head_dim == 128 and big_pages else 1


class ServingConfig(ArchTyped):
    """Validation and geometry of a one-wave KV-cache attention config (module docstring)."""

    __slots__ = ()
    KIND = "serving"

    # what the shared attention helpers (softmax, vtile, kvloop) read of a config: one wave,
    # one V^T buffer, causal (the new tokens), a per-element key mask in the masked body
    threads = 64
    waves = 1
    block_q = BLOCK_Q
    block_k = BLOCK_K
    causal = True
    key_mask = True
    kv_buffers = 1

    def _int(self, name: str, value, lo: int, hi: int) -> int:
        return int_in(self.KIND, name, value, lo, hi)

    def _check_types(self) -> None:
        """arch, dtype, kv_dtype / kv_scale, head_dim, batch, heads, kv_heads, max_context."""
        st, kind = object.__setattr__, self.KIND
        if self.arch not in ARCHES:
            raise ConfigError(f"{kind} arch={self.arch!r} is not one of {ARCHES}")
        if self.dtype not in IN_DTYPES:
            raise ConfigError(f"{kind} dtype={self.dtype!r} is not one of {IN_DTYPES}")
        if self.kv_dtype is None:
            st(self, "kv_dtype", self.dtype)
        if self.kv_dtype != self.dtype:
            if self.kv_dtype not in KV_FP8:
                raise ConfigError(f"{kind} kv_dtype={self.kv_dtype!r} is not dtype="
                                  f"{self.dtype!r} nor one of {KV_FP8}")
            if self.arch not in DTYPES[self.kv_dtype].arches:
                have = tuple(n for n in KV_FP8 if self.arch in DTYPES[n].arches)
                raise ConfigError(f"{kind} kv_dtype={self.kv_dtype!r} is not available on "
                                  f"{self.arch} (its fp8 KV dtypes: {have})")
        if self.kv_scale not in KV_SCALES:
            raise ConfigError(f"{kind} kv_scale={self.kv_scale!r} is not one of {KV_SCALES}")
        if self.kv_scale != "tensor" and self.kv_dtype == self.dtype:
            raise ConfigError(f"{kind} kv_scale={self.kv_scale!r} applies to an fp8 kv_dtype "
                              f"{KV_FP8} only (kv_dtype={self.kv_dtype!r})")
        if self.head_dim not in HEAD_DIMS:
            raise ConfigError(f"{kind} head_dim={self.head_dim!r} is not one of {HEAD_DIMS}")
        self._int("batch", self.batch, 1, BATCH_MAX)
        self._int("heads", self.heads, 1, HEADS_MAX)
        if self.kv_heads is None:
            st(self, "kv_heads", self.heads)
        self._int("kv_heads", self.kv_heads, 1, self.heads)
        if self.heads % self.kv_heads:
            raise ConfigError(f"{kind} kv_heads={self.kv_heads} does not divide "
                              f"heads={self.heads}")
        self._int("max_context", self.max_context, 1, CONTEXT_MAX)

    def _check_cache(self) -> None:
        """paged / page_size / num_blocks, or the dense cache within one buffer resource."""
        st, kind = object.__setattr__, self.KIND
        if not isinstance(self.paged, bool):
            raise ConfigError(f"{kind} paged={self.paged!r} is not a bool")
        if self.paged:
            if self.page_size not in PAGE_SIZES:
                raise ConfigError(f"{kind} page_size={self.page_size!r} is not one of "
                                  f"{PAGE_SIZES}")
            if self.max_context % self.page_size:
                raise ConfigError(f"{kind} max_context={self.max_context} is not a multiple of "
                                  f"page_size={self.page_size} (max_blocks_per_seq pages)")
            if self.num_blocks is None:
                st(self, "num_blocks", self.batch * self.max_blocks_per_seq)
            self._int("num_blocks", self.num_blocks, 1, BUFFER_BYTES_MAX // self.page_bytes)
        elif self.num_blocks is not None:
            raise ConfigError(f"{kind} num_blocks={self.num_blocks!r} applies to paged=True only")
        elif self.batch * self.max_context * self.kv_row_bytes > BUFFER_BYTES_MAX:
            raise ConfigError(f"{kind} dense KV cache {self.batch}x{self.max_context}x"
                              f"{self.kv_row_bytes} bytes exceeds the 4 GiB of a buffer "
                              f"resource (cdna-facts section 5); use paged=True")

    def _check_mfma(self) -> None:
        """mfma_k (default: the arch's native) and prefetch (default ``_prefetch_default``:
        ``prefetch_default``, which a kind may tighten)."""
        st, kind = object.__setattr__, self.KIND
        if self.mfma_k is None:
            st(self, "mfma_k", mfma_ks(self.arch, self.dtype)[0])
        if self.mfma_k not in mfma_ks(self.arch, self.dtype):
            raise ConfigError(f"{kind} mfma_k={self.mfma_k!r} is not available on {self.arch} "
                              f"(32x32xK with K in {mfma_ks(self.arch, self.dtype)})")
        if self.prefetch is None:
            st(self, "prefetch", self._prefetch_default())
        self._int("prefetch", self.prefetch, 0, 1)

    def _prefetch_default(self) -> int:
        return prefetch_default(self)

    def _check_scale(self) -> None:
        object.__setattr__(self, "scale", softmax_scale(self.KIND, self.scale, self.head_dim))

    # -- geometry (``target``, ``in_type``: ``ArchTyped``) -------------------------------------------------------------------------------
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
    def k_per_lane(self) -> int:
        return self.mfma_k * BLOCK_Q // self.target.wave_size

    @property
    def mfma(self) -> str:
        return f"v_mfma_f32_32x32x{self.mfma_k}_{self.dtype}"

    @property
    def lds_bytes(self) -> int:
        return v_bytes(self.head_dim)

    def name_parts(self) -> tuple[str, str]:
        """(GQA group suffix, cache suffix: paged page size, fp8 kv dtype, per-token scales)."""
        g = f"_g{self.group}" if self.group > 1 else ""
        kv = f"_paged{self.page_size}" if self.paged else ""
        if self.kv_fp8:
            kv += f"_kv{self.kv_dtype}" + ("_tok" if self.token_scales else "")
        return g, kv

    def to_dict(self) -> dict:
        return asdict(self)
