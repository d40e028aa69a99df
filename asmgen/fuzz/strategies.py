"""Hypothesis strategies for fuzz cases: valid ``GemmConfig``s x schedule seeds x emulator seeds.

Draws are shaped to be mostly valid (MFMA shapes of the drawn arch, tiles that are multiples of
waves x MFMA), and whatever ``GemmConfig`` still rejects with ``ConfigError`` (LDS or register
budget, vector widths, DMA constraints) is *filtered* (``hypothesis.reject``), never a failure.
Sizes include unaligned ones (M, N, K not multiples of the tile, odd K), so edge masking and
partial K-tiles are exercised. ``small=True`` keeps every case cheap enough for CI.
"""
from __future__ import annotations

from dataclasses import dataclass

from hypothesis import reject
from hypothesis import strategies as st

from ..config import ARCHES, LAYOUTS, MFMA_SHAPES, GemmConfig
from ..errors import ConfigError

SEED_MAX = 2**31 - 1


@dataclass(frozen=True)
class FuzzCase:
    """One fuzz case: a kernel config, the ``fuzz`` recipe seed and the emulator/input seed
    (``asmgen check --seed``: the same seed draws the inputs and the emulator's timing)."""

    config: GemmConfig
    sched_seed: int
    emu_seed: int

    def describe(self) -> str:
        return f"{self.config.name} m{self.config.m} n{self.config.n} k{self.config.k} " \
               f"{self.config.arch} sched={self.sched_seed} emu={self.emu_seed}"


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
        extras["lda"] = (m if layout[0] == "T" else k) + draw(st.sampled_from((1, 2, 8)))
    try:
        return GemmConfig(m=m, n=n, k=k, dtype=dtype, arch=arch, layout=layout,
                          out_dtype=out_dtype, tile=tile, waves=(wm, wn), mfma=mfma,
                          prefetch=prefetch, **extras)
    except ConfigError:
        reject()


def seeds() -> st.SearchStrategy[int]:
    return st.integers(0, SEED_MAX)


@st.composite
def fuzz_cases(draw, small: bool = True, arches=ARCHES) -> FuzzCase:
    """A config x a schedule seed x an emulator seed."""
    return FuzzCase(draw(gemm_configs(small, arches)), draw(seeds()), draw(seeds()))


def config_from_dict(d: dict) -> GemmConfig:
    """The inverse of ``GemmConfig.to_dict`` (reproducer files)."""
    d = {k: v for k, v in d.items() if k != "kind"}
    for key in ("tile", "waves", "mfma"):
        if d.get(key) is not None:
            d[key] = tuple(d[key])
    return GemmConfig(**d)
