"""Fuzzing the attention kind: the hypothesis strategy of valid ``AttentionConfig``s
(``attention_configs``: seqlens 1..130 aligned to the 32-row blocks, one off, or any; GQA/MQA
head counts, D 64/128 and (one multi-wave 16-bit case in eight) 256, causal, f16/bf16 and the arch's fp8 (one in four, bf16 or f32 O), both
arches, every ``mfma_k`` and ``prefetch`` the config takes, multi-wave workgroups, packed varlen
batches of ragged lengths), the shrink
moves of a failing config (``to_raw`` / ``candidates``) and the kernels of the mutation proof
(``proof_kernels``).
"""
from __future__ import annotations

from hypothesis import reject
from hypothesis import strategies as st

from ...errors import ConfigError
from ...target import ARCHES, CDNA3, CDNA4, DEFAULT_ARCH
from .config import AGPR_HEAD_DIM, BLOCK_K, BLOCK_Q, FP8_DTYPES, FP8_OUT, MFMA_K, AttentionConfig

# the head dims of the first draw (D 256 is drawn last, ``attention_configs``)
FIRST_HEAD_DIMS = (64, 128)
# the fp8 attention dtype of each arch (asmgen.dtypes: FNUZ on gfx942, OCP on gfx950)
FP8_OF = {CDNA3: "fp8_e4m3fnuz", CDNA4: "fp8_e4m3"}


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
    fp8 = draw(st.integers(0, 3)) == 0        # one case in four: the arch's fp8
    waves = draw(st.sampled_from((1, 2, 4)))
    extras = {} if waves == 1 else {"waves": waves, "kv_buffers": draw(st.sampled_from((2, 3)))}
    if fp8:
        extras["out_dtype"] = draw(st.sampled_from(FP8_OUT))
    if seq_k % BLOCK_K == 0 and draw(st.booleans()):
        extras["seqlen_k_multiple"] = BLOCK_K     # whole key blocks: no key mask unless causal
    kw = dict(extras, batch=draw(st.integers(1, 2)), heads=heads, kv_heads=kv_heads,
              seqlen_q=seq_q, seqlen_k=seq_k, head_dim=draw(st.sampled_from(FIRST_HEAD_DIMS)),
              dtype=FP8_OF[arch] if fp8 else draw(st.sampled_from(("f16", "bf16"))),
              causal=draw(st.booleans()), arch=arch,
              mfma_k=None if fp8 else draw(st.sampled_from(MFMA_K[arch])),
              prefetch=draw(st.sampled_from((0, 1))))
    # drawn last (the draws above, and so the dense cases, are unchanged): a quarter of the
    # cases (16-bit and fp8) are packed varlen batches of 1..4 sequences whose ragged lengths
    # (empty, 1, the maximum, any) the emulator seed draws (``reference.ragged_lengths``)
    if "seqlen_k_multiple" not in kw and draw(st.integers(0, 3)) == 0:
        kw.update(varlen=True, batch=draw(st.integers(1, 4)))
    # drawn last too: a quarter of the 4-wave D128 cases take the 8-wave ping-pong loop
    # (``kinds.attention.pingpong``: 3 K/V buffers, two wave groups one phase apart)
    if waves == 4 and kw["head_dim"] == 128 and draw(st.integers(0, 3)) == 0:
        kw.update(waves=8, kv_buffers=3)
    # drawn after that (the same reason): one 2- or 4-wave 16-bit case in eight takes head_dim
    # 256 (Q and, below four waves, O^T in AGPRs; three K/V buffers only fit gfx950's LDS; the
    # ping-pong loop is built for D128 only). Its orders are the scheduler's own with random
    # ties (``AttentionKind.fuzz_schedule_params``): no arbitrary order fits the ArchVGPRs, and
    # with one wave not every tie-break does either (one wave at D 256:
    # tests/attention/test_attention_d256.py and the proof kernels)
    if not fp8 and 1 < kw.get("waves", 1) < 8 and draw(st.integers(0, 7)) == 0:
        kw["head_dim"] = AGPR_HEAD_DIM
    try:
        return AttentionConfig(**kw)
    except ConfigError:
        reject()


def to_raw(cfg: AttentionConfig) -> dict:
    """The attention config as drawn: the default scale (1/sqrt(D)) and the arch's native
    ``mfma_k`` back to None so they follow a shrunk head_dim / arch; explicit values are kept."""
    d = cfg.to_dict()
    if d["scale"] == 1.0 / cfg.head_dim ** 0.5:
        d["scale"] = None
    if d["mfma_k"] == MFMA_K[cfg.arch][0] or cfg.fp8:   # fp8: its one MFMA K
        d["mfma_k"] = None
    if d["out_dtype"] == ("bf16" if cfg.fp8 else cfg.dtype):
        d["out_dtype"] = None
    return d


def candidates(raw: dict):
    """Smaller attention variants, most aggressive first: shorter sequences (one block, one
    row, one block off), fewer heads (keeping kv_heads | heads), batch 1, D 64, then simpler
    features (no causal mask, MHA, f16, gfx942 with its native MFMA, the default prefetch)."""
    for key in ("seqlen_q", "seqlen_k"):
        val0 = raw[key]
        for val in sorted({1, 32, 33, val0 // 2, val0 - 32, val0 - 1}):
            if 1 <= val < val0:
                yield {**raw, key: val}
    if raw["heads"] > 1:
        yield {**raw, "heads": 1, "kv_heads": 1}
        if raw["kv_heads"] < raw["heads"]:
            yield {**raw, "heads": raw["kv_heads"]}                 # MHA with the kv head count
            yield {**raw, "heads": raw["heads"] // raw["kv_heads"], "kv_heads": 1}   # MQA
    if raw["batch"] > 1:
        yield {**raw, "batch": 1}
    if raw["head_dim"] != 64:
        yield {**raw, "head_dim": 64}
    fp8 = raw.get("dtype") in FP8_DTYPES
    if fp8 and raw.get("out_dtype") is not None:
        yield {**raw, "out_dtype": None}
    simpler = (("varlen", False), ("causal", False), ("kv_heads", raw["heads"]), ("dtype", "f16"),
               ("mfma_k", None), ("prefetch", 1), ("scale", None))
    for key, val in simpler:
        if raw.get(key) != val:
            # leaving fp8 drops its output type (an fp8 kernel's bf16/f32 O)
            yield {**raw, key: val, **({"out_dtype": None} if key == "dtype" else {})}
    if raw["arch"] != DEFAULT_ARCH:
        # an fp8 case keeps fp8 in the default arch's format
        yield {**raw, "arch": DEFAULT_ARCH, "mfma_k": None,
               **({"dtype": FP8_OF[DEFAULT_ARCH]} if fp8 else {})}


# Attention kernels: both arches (ds_bpermute on gfx942, v_permlane32_swap on gfx950), both
# MFMA K on gfx950, causal and ragged key counts (so a stale mask or a stale row maximum is a
# wrong one: the last key block is partial, and causal rows see different key counts), GQA,
# prefetch 0 and 1, and every attention recipe (critical path, interleaved, fuzzed order).
# Each walks at least 4 key blocks. The config keys are ``AttentionConfig`` fields; ``schedule``
# and ``schedule_params`` name the recipe.
# Varlen: the last of the ragged sequences has the config's lengths (``reference.ragged_lengths``);
# checked again with it at 40 x 104 keys (104 - 40 = 64: its first Q-block's diagonal aligned, so
# the triangle body runs: unaligned lengths leave it dead code, where a mutant survives unseen)
VARLEN_PROOF = {"seqlen_q": 40, "seqlen_k": 130, "batch": 3, "heads": 2, "kv_heads": 1,
                "causal": True, "varlen": True, "schedule": "attn_basic",
                "check_sizes": ({"max_seqlen_q": 40, "max_seqlen_k": 104},)}
SINGLE_WAVE_ATTENTION = (
    # causal, seqlen_k - seqlen_q = -32: Q-block 0 sees no key (the per-element mask), 1 to 3
    # end on their diagonal (the triangle), 4 is partial (the mask, keys past seqlen_k)
    {"seqlen_q": 132, "seqlen_k": 100, "causal": True, "schedule": "attn_basic",
     "check_sizes": ({"seqlen_q": 132, "seqlen_k": 106},)},
    {"seqlen_q": 40, "seqlen_k": 130, "heads": 2, "kv_heads": 1, "dtype": "bf16",
     "arch": CDNA4, "schedule": "attn_interleave"},
    {"seqlen_q": 33, "seqlen_k": 129, "head_dim": 128, "prefetch": 0, "causal": True,
     "schedule": "fuzz", "schedule_params": {"seed": 11}},
    {"seqlen_q": 64, "seqlen_k": 129, "arch": CDNA4, "mfma_k": 8, "schedule": "fuzz",
     "schedule_params": {"seed": 12}},
    # fp8 (gfx942 FNUZ): the byte-transposed V tile, the fp8 MFMAs, P's in-place converts
    # (checked again at 40 x 104 keys, aligned: the triangle body runs; at 40 x 130 a mutant
    # there, e.g. a V^T ds_read hoisted above the tile's ds_writes, survives as dead code)
    {"seqlen_q": 40, "seqlen_k": 130, "heads": 2, "kv_heads": 1, "dtype": "fp8_e4m3fnuz",
     "causal": True, "schedule": "attn_interleave",
     "check_sizes": ({"seqlen_q": 40, "seqlen_k": 104},)},
    # varlen (after the first ones: ``--kernels N`` keeps them): three packed sequences of
    # ragged lengths (``reference.ragged_lengths``), causal per sequence, the cu_seqlens loads,
    # the early exit of the Q-blocks past a sequence
    VARLEN_PROOF,
)
# fp8 with K/V shared through LDS (OCP on gfx950, two waves: the paired K layout by DMA, the
# V tile's 2-key items and ds_write_b16s)
MULTI_WAVE_FP8 = ({"seqlen_q": 64, "seqlen_k": 130, "waves": 2, "kv_buffers": 2, "arch": CDNA4,
                   "dtype": "fp8_e4m3", "head_dim": 64, "schedule": "attn_prio_interleave"},)
# Workgroups of several waves sharing K/V through LDS (s_barrier between LDS phases: the
# delete_barrier and publication sites), with 2 and 3 LDS buffers; used when the attention
# config has those fields (``waves``, ``kv_buffers``). The first one leads the list, so
# ``--kernels 1`` proves a kernel with barriers.
MULTI_WAVE_ATTENTION = (
    # causal, seqlen_k - seqlen_q = 96: waves 0..2 run the unmasked body, their triangle and
    # 3, 2, 1 skipped blocks, wave 3 (rows past seqlen_q) the unmasked body and the per-element
    # mask (its last block); checked again at seqlen_k = 214 (not aligned: the per-element mask
    # on two blocks per wave, mid-loop, and no triangle)
    {"seqlen_q": 124, "seqlen_k": 220, "causal": True, "waves": 4, "schedule": "attn_basic",
     "check_sizes": ({"seqlen_q": 124, "seqlen_k": 214},)},
    {"seqlen_q": 100, "seqlen_k": 130, "waves": 4, "kv_buffers": 3, "arch": CDNA4,
     "dtype": "bf16", "schedule": "fuzz", "schedule_params": {"seed": 5}},
    # the 8-wave ping-pong loop (``kinds.attention.pingpong``), causal, seqlen_k - seqlen_q = 64:
    # the two groups' offset barriers, the rotated body (PV of block j - 1 beside QK of block
    # j), the K DMA published three barriers on, the skip body of waves 2..7's last blocks
    # (f16: its tolerance is 8x tighter than bf16's, so a swapped P rounding step shows)
    {"seqlen_q": 200, "seqlen_k": 264, "causal": True, "waves": 8, "head_dim": 128,
     "dtype": "f16", "schedule": "attn_pingpong"},
)


# fp8 varlen (FNUZ, causal): the packed sequences' scalar loads with the fp8 loop, P's offset
# and the scales over ragged lengths (``--kernels N`` keeps the ones before)
VARLEN_FP8_PROOF = {**VARLEN_PROOF, "dtype": "fp8_e4m3fnuz", "schedule": "attn_interleave"}

# Head dim 256 (last: ``--kernels N`` keeps the others): one wave with Q and O^T in AGPRs
# (the PV MFMAs' AGPR C / D, the rescale's v_accvgpr_read / write round trips and their MFMA
# hazards), causal GQA over 8 key blocks (seqlen_k - seqlen_q = 192: Q-block 0 runs the
# unmasked body and its triangle, the partial Q-block 1 the per-element mask on the partial
# last block); f16, whose tolerance (8 unit roundoffs, 2^-8) a skipped rescale of one
# accumulator exceeds (bf16's 2^-5 let that swap survive at 0.019-0.026); four waves sharing K/V
# (Q in AGPRs, O^T in VGPRs, half-row K chunks by 4-byte DMA on gfx942), causal with the lengths
# of the first multi-wave kernel and its second size (the per-element mask mid-loop, in the
# diagonal loop; a non-causal kernel's masked arm, the last block only, has no closing
# s_barrier since it guarded no later read, ``pipe``)
D256_ATTENTION = (
    {"seqlen_q": 40, "seqlen_k": 232, "heads": 2, "kv_heads": 1, "head_dim": 256,
     "causal": True, "schedule": "attn_interleave"},
    {"seqlen_q": 124, "seqlen_k": 220, "causal": True, "waves": 4, "kv_buffers": 2,
     "head_dim": 256, "schedule": "attn_prio_interleave",
     "check_sizes": ({"seqlen_q": 124, "seqlen_k": 214},)},
)


def proof_kernels() -> tuple[dict, ...]:
    """The attention proof kernels the current ``AttentionConfig`` can express."""
    fields = set(AttentionConfig.__dataclass_fields__)
    multi = tuple(spec for spec in MULTI_WAVE_ATTENTION
                  if {"waves", "kv_buffers"} & set(spec) <= fields)
    if not multi:
        return SINGLE_WAVE_ATTENTION + (VARLEN_FP8_PROOF,)
    return (multi[:1] + SINGLE_WAVE_ATTENTION[:2] + multi[1:] + SINGLE_WAVE_ATTENTION[2:]
            + MULTI_WAVE_FP8 + (VARLEN_FP8_PROOF,) + D256_ATTENTION)
