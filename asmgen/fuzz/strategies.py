"""Hypothesis strategies for fuzz cases: valid ``GemmConfig``s or ``AttentionConfig``s x schedule
seeds x emulator seeds.

Draws are shaped to be mostly valid (MFMA shapes of the drawn arch, tiles that are multiples of
waves x MFMA), and whatever ``GemmConfig`` still rejects with ``ConfigError`` (LDS or register
budget, vector widths, DMA constraints) is *filtered* (``hypothesis.reject``), never a failure.
Sizes include unaligned ones (M, N, K not multiples of the tile, odd K), so edge masking and
partial K-tiles are exercised. ``small=True`` keeps every case cheap enough for CI.
Attention draws: seqlens 1..130 (aligned to the 32-row blocks, one off, or any), GQA/MQA head
counts, D 64/128, causal, both dtypes and arches, every ``mfma_k`` and ``prefetch`` the config takes.
"""
from __future__ import annotations

from dataclasses import dataclass

from hypothesis import reject
from hypothesis import strategies as st

from ..errors import ConfigError
from ..kinds.attention.config import BLOCK_K, BLOCK_Q, HEAD_DIMS, MFMA_K, AttentionConfig
from ..kinds.gemm.config import LAYOUTS, GemmConfig
from ..target import ARCHES, MFMA_SHAPES

SEED_MAX = 2**31 - 1


@dataclass(frozen=True)
class FuzzCase:
    """One fuzz case: a kernel config, the ``fuzz`` recipe seed and the emulator/input seed
    (``asmgen check --seed``: the same seed draws the inputs and the emulator's timing)."""

    config: GemmConfig | AttentionConfig
    sched_seed: int
    emu_seed: int

    @property
    def kind(self) -> str:
        """``gemm`` or ``attention`` (the contract's ``config.kind``)."""
        return kind_of(self.config)

    def describe(self) -> str:
        c = self.config
        if self.kind == "attention":
            size = (f"b{c.batch} h{c.heads}/{c.kv_heads} sq{c.seqlen_q} sk{c.seqlen_k} "
                    f"d{c.head_dim}")
        else:
            size = f"m{c.m} n{c.n} k{c.k}"
        return f"{c.name} {size} {c.arch} sched={self.sched_seed} emu={self.emu_seed}"


def kind_of(config) -> str:
    if isinstance(config, AttentionConfig):
        return "attention"
    if isinstance(config, GemmConfig):
        return "gemm"
    raise ConfigError(f"fuzz config {config!r} is neither a GemmConfig nor an AttentionConfig")


def _size(draw, tile: int, max_tiles: int) -> int:
    """A problem size: aligned to the tile, one off, or anything from 1 up."""
    kind = draw(st.sampled_from(("aligned", "off_by_one", "any")))
    if kind == "aligned":
        return tile * draw(st.integers(1, max_tiles))
    if kind == "off_by_one":
        return max(1, tile * draw(st.integers(1, max_tiles)) + draw(st.sampled_from((-1, 1))))
    return draw(st.integers(1, tile * max_tiles))


@st.composite
def gemm_configs(draw, small: bool = True, arches=ARCHES) -> GemmConfig:
    """A valid GemmConfig (ConfigError rejections are filtered)."""
    arch = draw(st.sampled_from(tuple(arches)))
    mfma = draw(st.sampled_from(MFMA_SHAPES[arch]))
    wm = draw(st.sampled_from((1, 2) if small else (1, 2, 4)))
    wn = draw(st.sampled_from((1, 2) if small else (1, 2, 4)))
    # tile = waves x MFMA x blocks-per-wave (power of two), DepthU = MFMA K x steps
    bm = draw(st.sampled_from((1, 2) if small else (1, 2, 4)))
    bn = draw(st.sampled_from((1, 2) if small else (1, 2, 4)))
    steps = draw(st.sampled_from((1, 2, 4) if small else (1, 2, 4, 8)))
    tile = (wm * mfma[0] * bm, wn * mfma[1] * bn, mfma[2] * steps)
    if small and tile[0] * tile[1] > 64 * 64:
        reject()
    max_tiles = 2 if small else 3
    m = _size(draw, tile[0], max_tiles)
    n = _size(draw, tile[1], max_tiles)
    k = _size(draw, tile[2], 3 if small else 6)
    layout = draw(st.sampled_from(LAYOUTS))
    dtype = draw(st.sampled_from(("f16", "bf16")))
    out_dtype = draw(st.sampled_from((None, "f32", "f16", "bf16")))
    prefetch = draw(st.sampled_from((1, 2, 3)))
    extras = {}
    if draw(st.booleans()):
        extras["activation"] = draw(st.sampled_from(("none", "silu", "gelu")))
        extras["bias"] = draw(st.booleans())
    if draw(st.integers(0, 3)) == 0:
        extras["direct_to_lds"] = True
    if draw(st.integers(0, 3)) == 0:
        extras["lds_swizzle"] = True
    if k % tile[2] == 0 and draw(st.booleans()):
        extras["k_multiple"] = tile[2]        # no K-tail mask in the loop
    if draw(st.integers(0, 3)) == 0:
        extras["lda"] = (m if layout[0] == "T" else k) + draw(st.sampled_from((1, 2, 8)))
    try:
        return GemmConfig(m=m, n=n, k=k, dtype=dtype, arch=arch, layout=layout,
                          out_dtype=out_dtype, tile=tile, waves=(wm, wn), mfma=mfma,
                          prefetch=prefetch, **extras)
    except ConfigError:
        reject()


def _seqlen(draw, block: int, hi: int) -> int:
    """A sequence length in 1..hi: a multiple of the block, one off, or anything."""
    kind = draw(st.sampled_from(("aligned", "off_by_one", "any")))
    if kind == "aligned":
        return block * draw(st.integers(1, hi // block))
    if kind == "off_by_one":
        return block * draw(st.integers(1, hi // block)) + draw(st.sampled_from((-1, 1)))
    return draw(st.integers(1, hi))


@st.composite
def attention_configs(draw, small: bool = True, arches=ARCHES) -> AttentionConfig:
    """A valid AttentionConfig: seqlens up to 130 (``small``) or 260, unaligned ones included."""
    arch = draw(st.sampled_from(tuple(arches)))
    heads = draw(st.integers(1, 4))
    kv_heads = draw(st.sampled_from([d for d in range(1, heads + 1) if heads % d == 0]))
    hi = 130 if small else 260
    seq_q = _seqlen(draw, BLOCK_Q, hi)
    seq_k = _seqlen(draw, BLOCK_K, hi)
    waves = draw(st.sampled_from((1, 2, 4)))
    extras = {} if waves == 1 else {"waves": waves, "kv_buffers": draw(st.sampled_from((2, 3)))}
    if seq_k % BLOCK_K == 0 and draw(st.booleans()):
        extras["seqlen_k_multiple"] = BLOCK_K     # whole key blocks: no key mask unless causal
    try:
        return AttentionConfig(**extras,
            batch=draw(st.integers(1, 2)), heads=heads, kv_heads=kv_heads, seqlen_q=seq_q,
            seqlen_k=seq_k, head_dim=draw(st.sampled_from(HEAD_DIMS)),
            dtype=draw(st.sampled_from(("f16", "bf16"))), causal=draw(st.booleans()), arch=arch,
            mfma_k=draw(st.sampled_from(MFMA_K[arch])), prefetch=draw(st.sampled_from((0, 1))))
    except ConfigError:
        reject()


def seeds() -> st.SearchStrategy[int]:
    return st.integers(0, SEED_MAX)


@st.composite
def fuzz_cases(draw, small: bool = True, arches=ARCHES, kind: str = "gemm") -> FuzzCase:
    """A config of ``kind`` (``gemm`` | ``attention``) x a schedule seed x an emulator seed."""
    configs = {"gemm": gemm_configs, "attention": attention_configs}
    if kind not in configs:
        raise ConfigError(f"fuzz kind {kind!r} is not one of {tuple(configs)}")
    return FuzzCase(draw(configs[kind](small, arches)), draw(seeds()), draw(seeds()))


def config_from_dict(d: dict, kind: str | None = None) -> GemmConfig | AttentionConfig:
    """The inverse of ``GemmConfig.to_dict`` / ``AttentionConfig.to_dict`` (reproducer files);
    the kind is ``kind`` or the dict's ``kind`` key, default ``gemm``."""
    kind = kind or d.get("kind") or "gemm"
    d = {k: v for k, v in d.items() if k != "kind"}
    if kind == "attention":
        try:
            return AttentionConfig(**d)
        except TypeError as exc:
            raise ConfigError(f"not an attention config: {exc}") from None
    if kind != "gemm":
        raise ConfigError(f"config kind {kind!r} is not one of ('gemm', 'attention')")
    for key in ("tile", "waves", "mfma"):
        if d.get(key) is not None:
            d[key] = tuple(d[key])
    return GemmConfig(**d)
