"""Fuzzing the GEMM kind: the hypothesis strategy of valid ``GemmConfig``s (``gemm_configs``),
the loop arrangement a schedule seed picks (``fuzz_arrangement``), the shrink moves of a failing
config (``to_raw`` / ``from_raw`` / ``candidates``) and the kernels of the mutation proof
(``PROOF_KERNELS``).

Draws are shaped to be mostly valid (MFMA shapes of the drawn arch, tiles that are multiples of
waves x MFMA), and whatever ``GemmConfig`` still rejects with ``ConfigError`` (LDS or register
budget, vector widths, DMA constraints) is *filtered* (``hypothesis.reject``), never a failure.
Sizes include unaligned ones (M, N, K not multiples of the tile, odd K), so edge masking and
partial K-tiles are exercised. ``small=True`` keeps every case cheap enough for CI.

One draw in three is an 8-bit GEMM (``lowp_configs``, issue 15): fp8/bf8 of the drawn arch's
encodings or i8, any layout (NT, the fast K-contiguous one, half the time), the dtype's own MFMA
shapes, a mixed fp8 x bf8 B, fp8/bf8/i32 outputs and every scale_a/scale_b mode. One in six is an MX GEMM
(``mx_configs``) when a drawn arch has the MX types (gfx950): mxfp8 or mxfp4 within their limits
(NT, every loop arrangement, the f8f6f4 MFMA shapes, K a multiple of 32 so every scale block
is whole, sometimes ending inside a K-tile) with E8M0 block scales; the shrink moves keep K such a
multiple.
"""
from __future__ import annotations

from hypothesis import reject
from hypothesis import strategies as st

from isa.mfma_shapes import SCALE_BLOCK

from ...errors import ConfigError
from ...target import ARCHES, CDNA4, DEFAULT_ARCH, MFMA_SHAPES
from .config import (
    FP8_OUT_DTYPES,
    LAYOUTS,
    LOWP_DTYPES,
    MX_DTYPES,
    SCALE_A_MODES,
    SCALE_B_MODES,
    GemmConfig,
)


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
    """A valid GemmConfig (ConfigError rejections are filtered): f16/bf16 in any layout, or (one
    draw in three) an 8-bit one (``lowp_configs``), or (one in six, where an arch has them) an MX
    one (``mx_configs``, which draws its own fragment buffers)."""
    pick = draw(st.integers(0, 5))
    if pick == 5 and _mx_arches(arches):
        return draw(mx_configs(small, arches))
    if pick < 2:
        return with_frag_buffers(draw, draw(lowp_configs(small, arches)))
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
        cfg = GemmConfig(m=m, n=n, k=k, dtype=dtype, arch=arch, layout=layout,
                         out_dtype=out_dtype, tile=tile, waves=(wm, wn), mfma=mfma,
                         prefetch=prefetch, **extras)
    except ConfigError:
        reject()
    return with_frag_buffers(draw, cfg)


def with_frag_buffers(draw, cfg: GemmConfig) -> GemmConfig:
    """``cfg`` with drawn MFMA operand register sets (0: one per K-step; 2 is ck_v4's), for
    either strategy (drawn last, so the draws of ``lowp_configs`` itself are unchanged). A split
    loop, which a case's schedule seed may pick (``fuzz_case_config``), carries one set and
    drops them."""
    import dataclasses
    frag_buffers = draw(st.sampled_from((0, 0, 1, 2, 3)))
    if not frag_buffers:
        return cfg
    try:
        return dataclasses.replace(cfg, frag_buffers=frag_buffers)
    except ConfigError:
        reject()


def _lowp_mfmas(arch: str, a: str, b: str | None = None) -> list:
    from ...target import target_of
    return [f.shape for f in target_of(arch).mfmas(a, b) if f.blocks == 1 and "f8f6f4" not in f.name]


@st.composite
def lowp_configs(draw, small: bool = True, arches=ARCHES) -> GemmConfig:
    """A valid 8-bit GemmConfig: fp8/bf8/i8 inputs of the arch, any layout (NT half the time;
    the others byte-transpose their MN-contiguous operands), the pair's MFMA shapes,
    any output the input allows (fp8/bf8 of the arch saturating, i32 for i8) and scale modes."""
    from ...target import target_of
    arch = draw(st.sampled_from(tuple(arches)))
    have = target_of(arch).dtypes()
    dtype = draw(st.sampled_from([d for d in LOWP_DTYPES if d in have]))
    dtype_b = None
    others = [d for d in LOWP_DTYPES if d in have and d != dtype and _lowp_mfmas(arch, dtype, d)]
    if others and draw(st.booleans()):
        dtype_b = draw(st.sampled_from(others))
    mfma = draw(st.sampled_from(_lowp_mfmas(arch, dtype, dtype_b)))
    wm = draw(st.sampled_from((1, 2)))
    wn = draw(st.sampled_from((1, 2)))
    bm = draw(st.sampled_from((1, 2) if small else (1, 2, 4)))
    bn = draw(st.sampled_from((1, 2) if small else (1, 2, 4)))
    steps = draw(st.sampled_from((1, 2) if small else (1, 2, 4)))
    tile = (wm * mfma[0] * bm, wn * mfma[1] * bn, mfma[2] * steps)
    if small and tile[0] * tile[1] > 64 * 64:
        reject()
    m = _size(draw, tile[0], 2 if small else 3)
    n = _size(draw, tile[1], 2 if small else 3)
    k = _size(draw, tile[2], 3 if small else 6)
    outs = [None, "f32", "f16", "bf16"] + [d for d in FP8_OUT_DTYPES if d in have]
    if dtype == "i8":
        outs.append("i32")
    out_dtype = draw(st.sampled_from(outs))
    extras = {}
    if out_dtype not in (None, "i32") or dtype != "i8":
        extras["scale_a_mode"] = draw(st.sampled_from(SCALE_A_MODES))
        extras["scale_b_mode"] = draw(st.sampled_from(SCALE_B_MODES))
        if draw(st.booleans()):
            extras["activation"] = draw(st.sampled_from(("none", "silu", "gelu")))
            extras["bias"] = draw(st.booleans())
    if draw(st.integers(0, 3)) == 0:
        extras["direct_to_lds"] = True
    if draw(st.integers(0, 3)) == 0:
        extras["lds_swizzle"] = True
    layout = draw(st.sampled_from(("NT", "NN", "NT", "TN", "NT", "TT")))
    if draw(st.integers(0, 3)) == 0:
        extras["lda"] = (m if layout[0] == "T" else k) + draw(st.sampled_from((4, 16)))
    try:
        return GemmConfig(m=m, n=n, k=k, dtype=dtype, dtype_b=dtype_b, arch=arch, layout=layout,
                          out_dtype=out_dtype, tile=tile, waves=(wm, wn), mfma=mfma,
                          prefetch=draw(st.sampled_from((1, 2))), **extras)
    except ConfigError:
        reject()


def _mx_arches(arches) -> tuple:
    from ...target import target_of
    return tuple(a for a in arches if set(MX_DTYPES) <= set(target_of(a).dtypes()))


@st.composite
def mx_configs(draw, small: bool = True, arches=ARCHES) -> GemmConfig:
    """A valid MX GemmConfig (mxfp8 / mxfp4 with E8M0 block scales) on an arch that has them:
    any layout (the arrangement is the case's, ``fuzz_arrangement``: 2x4 waves for the
    ping-pong), the scaled f8f6f4 MFMA shapes, K a multiple of
    DepthU x staging or (one in three) of the 32-element scale block only, a K tail
    (``GemmConfig._check_mx``), M and N anything, every output, bias and
    activation, LDS-DMA, swizzle, register staging and fragment buffers."""
    from ...target import target_of
    mx_arches = _mx_arches(arches)
    if not mx_arches:
        reject()
    arch = draw(st.sampled_from(mx_arches))
    dtype = draw(st.sampled_from(MX_DTYPES))
    mfma = draw(st.sampled_from([f.shape for f in target_of(arch).mfmas(dtype) if f.blocks == 1]))
    wm = draw(st.sampled_from((1, 2)))
    wn = draw(st.sampled_from((1, 2)))
    bm = draw(st.sampled_from((1, 2) if small else (1, 2, 4)))
    bn = draw(st.sampled_from((1, 2) if small else (1, 2, 4)))
    eight = draw(st.integers(0, 5)) == 0     # 2x4 waves, one split-loop shape: the ping-pong's
    if eight:
        mfma, wm, wn, bm, bn = (16, 16, 128), 2, 4, 1, 1
    steps = draw(st.sampled_from((1, 2) if small else (1, 2, 4)))
    tile = (wm * mfma[0] * bm, wn * mfma[1] * bn, mfma[2] * steps)
    if small and tile[0] * tile[1] > 64 * 64:
        reject()
    staging = 1 if eight else draw(st.sampled_from((1, 2)))
    span = tile[2] * staging
    m = _size(draw, tile[0], 2 if small else 3)
    n = _size(draw, tile[1], 2 if small else 3)
    k = span * draw(st.integers(1, 2 if small else 4))
    if draw(st.integers(0, 2)) == 0:
        k = 32 * draw(st.integers(1, k // 32))
    out_dtype = draw(st.sampled_from([None, "f32", "f16", "bf16"] +
                                     [d for d in FP8_OUT_DTYPES if d in target_of(arch).dtypes()]))
    extras = {}
    if staging > 1:
        extras["staging"] = staging
    if draw(st.booleans()):
        extras["activation"] = draw(st.sampled_from(("none", "silu", "gelu")))
        extras["bias"] = draw(st.booleans())
    if draw(st.integers(0, 3)) == 0:
        extras["direct_to_lds"] = True
    if draw(st.integers(0, 3)) == 0:
        extras["lds_swizzle"] = True
    if draw(st.integers(0, 3)) == 0:
        extras["frag_buffers"] = draw(st.sampled_from((1, 2)))
    if draw(st.integers(0, 3)) == 0:
        extras["lda"] = k + draw(st.sampled_from((32, 64)))
    try:
        # every layout, one in two off NT (mxfp8: the 8-bit byte transpose, mxfp4: the nibble
        # transpose of E2M1 pairs packed along M / N)
        layout = "NT" if draw(st.booleans()) else draw(st.sampled_from(("NN", "TN", "TT")))
        return GemmConfig(m=m, n=n, k=k, dtype=dtype, arch=arch, layout=layout,
                          out_dtype=out_dtype, tile=tile, waves=(wm, wn), mfma=mfma,
                          prefetch=1 if eight else draw(st.sampled_from((1, 2))), **extras)
    except ConfigError:
        reject()


def fuzz_arrangement(cfg, sched_seed: int) -> str:
    """The GEMM loop arrangement a case's schedule seed picks among those its config allows (the
    split loops need prefetch 1 and staging 1; pingpong 8 waves; MX block scales ride in their
    memory phase): a function of the case alone, so reproducers replay it."""
    if cfg.prefetch != 1 or cfg.staging != 1:
        return "default"
    options = ["default", "interleave"]
    if cfg.waves[0] * cfg.waves[1] == 8:
        options.append("pingpong")
    return options[(sched_seed >> 3) % len(options)]


def fuzz_case_config(cfg: GemmConfig, sched_seed: int) -> GemmConfig:
    """The config a case compiles: the drawn one with the arrangement its schedule seed picks;
    a split loop (interleave, pingpong) carries one operand register set across iterations, so
    it takes frag_buffers 0 (the drawn sets apply to the default loop only)."""
    import dataclasses
    arrangement = fuzz_arrangement(cfg, sched_seed)
    frag = cfg.frag_buffers if arrangement == "default" else 0
    return dataclasses.replace(cfg, arrangement=arrangement, frag_buffers=frag)


def to_raw(cfg: GemmConfig) -> dict:
    """The config as drawn: derived fields (vectors, packed leading dims) back to None, the
    leading-dimension padding kept as an offset so shrinking M/N/K keeps it meaningful."""
    d = cfg.to_dict()
    ta, tb = cfg.layout[0] == "T", cfg.layout[1] == "T"
    rows = {"lda": cfg.m if ta else cfg.k, "ldb": cfg.k if tb else cfg.n, "ldc": cfg.n}
    for key, row in rows.items():
        d[key + "_pad"] = d.pop(key) - row
    for key in ("vec_a", "vec_b", "lds_pad"):
        d[key] = None
    return d


def from_raw(raw: dict) -> GemmConfig:
    d = dict(raw)
    pads = {k: d.pop(k + "_pad") for k in ("lda", "ldb", "ldc")}
    ta, tb = d["layout"][0] == "T", d["layout"][1] == "T"
    rows = {"lda": d["m"] if ta else d["k"], "ldb": d["k"] if tb else d["n"], "ldc": d["n"]}
    for key, pad in pads.items():
        d[key] = rows[key] + pad if pad else None
    for key in ("tile", "waves", "mfma"):
        if d.get(key) is not None:
            d[key] = tuple(d[key])
    return GemmConfig(**d)


def candidates(raw: dict):
    """Smaller variants of a raw config, most aggressive first. An MX config's moves stay MX-legal:
    K only to multiples of the 32-element scale block, and ``k_multiple`` back to 1 in every move
    (the config re-derives it from K, the moved tile and staging, ``GemmConfig._check_mx``)."""
    if raw["dtype"] not in MX_DTYPES:
        yield from _candidates(raw)
        return
    for cand in _candidates(raw):
        if cand["dtype"] not in MX_DTYPES:
            # leaving MX: to f16 (the MFMA re-derived), to see whether the block scales matter
            yield {**cand, "mfma": None, "k_multiple": 1}
        elif (cand["layout"] == raw["layout"] and cand["arch"] == raw["arch"]
              and not cand["k"] % SCALE_BLOCK
              and (cand["mfma"] is None or not cand["tile"][2] % cand["mfma"][2])):
            yield {**cand, "k_multiple": 1}
    for key, val in (("staging", 1), ("lds_swizzle", False), ("layout", "NT"),
                     ("dtype", "mxfp8")):
        if raw.get(key) != val:
            yield {**raw, key: val, "k_multiple": 1}


def _candidates(raw: dict):
    tile, waves = list(raw["tile"]), list(raw["waves"])
    span = SCALE_BLOCK if raw["dtype"] in MX_DTYPES else 1   # MX: whole scale blocks of K
    for key, t in (("m", tile[0]), ("n", tile[1]), ("k", tile[2])):
        vals = {1, t, raw[key] // 2, raw[key] - t, raw[key] - 1}
        if key == "k" and span > 1:
            vals = {span, raw["k"] // 2 // span * span, raw["k"] - span}
        for val in sorted(vals):
            if 1 <= val < raw[key]:
                yield {**raw, key: val}
    for i in range(2):
        if waves[i] > 1:
            w = list(waves)
            w[i] //= 2
            t = list(tile)
            t[i] //= 2
            yield {**raw, "waves": w, "tile": t}
            yield {**raw, "waves": w}
    for i in range(3):
        t = list(tile)
        t[i] //= 2
        yield {**raw, "tile": t}
    if raw["prefetch"] > 1:
        yield {**raw, "prefetch": raw["prefetch"] - 1}
    if raw["dtype"] in LOWP_DTYPES + MX_DTYPES and raw["layout"] != "NT":
        yield {**raw, "layout": "NT"}       # 8-bit, MX: to the K-contiguous layout (no transposes)
    simpler = (("scale_a_mode", "tensor"), ("scale_b_mode", "tensor"), ("dtype_b", None),
               ("activation", "none"), ("bias", False), ("direct_to_lds", False),
               ("frag_buffers", 0),
               ("lda_pad", 0), ("ldb_pad", 0), ("ldc_pad", 0), ("out_dtype", None),
               ("layout", "NN"), ("dtype", "f16"), ("arch", DEFAULT_ARCH), ("mfma", None))
    for key, val in simpler:
        if raw.get(key) != val:
            yield {**raw, key: val}


# the MX block-scale loads (kinds.gemm.mxscale): the MX proof kernels' waits aimed at them
SCALE_LOADS = ("buffer_load_ubyte",)

# GEMM kernels the proof breaks: several recipes, layouts and arches, 4 or 8 waves (races)
# and at least 4 K-iterations (so a stale address or value from the previous trip is a wrong one).
GEMM_PROOF_KERNELS = (
    {"m": 64, "n": 64, "k": 128, "schedule": "pgr1"},
    {"m": 64, "n": 64, "k": 256, "schedule": "pgr2", "layout": "NT"},
    {"m": 48, "n": 40, "k": 256, "schedule": "ck_v4", "layout": "TN", "dtype": "bf16",
     "arch": CDNA4, "mfma": (16, 16, 32), "tile": (32, 32, 64)},
    {"m": 64, "n": 64, "k": 128, "schedule": "pgr1", "direct_to_lds": True},
    {"m": 64, "n": 64, "k": 128, "schedule": "fuzz", "schedule_params": {"seed": 11}},
    {"m": 64, "n": 64, "k": 128, "schedule": "fuzz", "layout": "TT",
     "schedule_params": {"seed": 12}},
    # the split K loops: 8-wave ping-pong (barriers between phases, a conditional barrier per
    # wave group) over swizzled LDS-DMA tiles, and the 4-wave interleave without a K mask
    {"m": 64, "n": 128, "k": 160, "schedule": "pingpong", "layout": "NT", "waves": (2, 4),
     "tile": (64, 128, 32), "direct_to_lds": True, "lds_swizzle": True},
    {"m": 64, "n": 64, "k": 128, "schedule": "interleave", "layout": "NT", "lds_swizzle": True,
     "k_multiple": 32, "tile": (64, 64, 32)},
    # 8-bit (issue 15): fp8 x bf8 with per-row / per-column scale vectors (f32 output, so a wrong
    # byte is visible), and i8 with the bit-exact i32 accumulator on CDNA4
    {"m": 64, "n": 64, "k": 256, "schedule": "pgr2", "layout": "NT", "dtype": "fp8_e4m3fnuz",
     "dtype_b": "bf8_e5m2fnuz", "tile": (64, 64, 64), "scale_a_mode": "row", "scale_b_mode": "col"},
    {"m": 64, "n": 64, "k": 256, "schedule": "pgr1", "layout": "NT", "dtype": "i8",
     "arch": CDNA4, "tile": (64, 64, 64), "direct_to_lds": True},
    # and both operands MN-contiguous (layout TN: 4 K rows per load, byte-transposed in registers)
    {"m": 64, "n": 64, "k": 256, "schedule": "pgr2", "layout": "TN", "dtype": "fp8_e4m3",
     "arch": CDNA4, "tile": (64, 64, 64), "out_dtype": "f32"},
    # MX (issue 15): mxfp4 with its E8M0 block scales (per-lane scale loads pipelined one K-tile
    # ahead, copied to the registers the scaled MFMAs read), 4 waves, 4 K-tiles, f32 output
    {"m": 64, "n": 64, "k": 512, "schedule": "pgr2", "layout": "NT", "dtype": "mxfp4",
     "arch": CDNA4, "tile": (64, 64, 128), "waves": (2, 2), "mfma": (16, 16, 128),
     "out_dtype": "f32", "mutate_aim": SCALE_LOADS},
    # mxfp8 in the 4-wave interleave split loop (scale loads in the memory work, copied after
    # the MFMAs) with a K tail (416 = 3 K-tiles + 32: masked scale loads), 4 K-iterations
    # mxfp4 with both operands MN-contiguous (layout TN: E2M1 pairs packed along M / N, 8 K rows
    # of 4 MN elements per vector, nibble-transposed in registers before the LDS write)
    {"m": 64, "n": 64, "k": 512, "schedule": "pgr2", "layout": "TN", "dtype": "mxfp4",
     "arch": CDNA4, "tile": (64, 64, 128), "waves": (2, 2), "mfma": (16, 16, 128),
     "out_dtype": "f32", "mutate_aim": SCALE_LOADS},
    # and B alone (layout NN) in the 4-wave interleave split loop, N and K off the tile
    {"m": 64, "n": 56, "k": 416, "schedule": "interleave", "layout": "NN", "dtype": "mxfp4",
     "arch": CDNA4, "tile": (64, 64, 128), "waves": (2, 2), "mfma": (16, 16, 128),
     "out_dtype": "f32", "mutate_aim": SCALE_LOADS},
    {"m": 64, "n": 64, "k": 416, "schedule": "interleave", "layout": "NT", "dtype": "mxfp8",
     "arch": CDNA4, "tile": (64, 64, 128), "waves": (2, 2), "mfma": (16, 16, 128),
     "lds_swizzle": True, "out_dtype": "f32", "mutate_aim": SCALE_LOADS},
)
