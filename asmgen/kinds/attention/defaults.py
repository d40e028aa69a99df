"""The attention configuration ``asmgen attention`` builds when no tuning flag (``--schedule``,
``--waves``, ``--kv-buffers``, ``--seed``) is given: a small table keyed by arch, head_dim, causal
and (non-causal) whether the key mask stays (``seqlen_k_multiple``), ranked
by the calibrated cycle model (``benchmarks/attention_rank.py``: every recipe x waves x
kv_buffers at B16 H16 S8192 bf16, ``--seqlen-k-multiple 32``; the numbers are in the notes of
issue 16). Not a search: the first candidate the generator accepts wins.

* ``seqlen_q`` of at least one 4-wave Q-block (128 rows): the table's row. At D128, 4 waves
  sharing K/V through LDS under ``attn_prio_interleave`` lead on both arches, causal or not;
  at D256 4 waves too (gfx950: ``attn_basic``).
* ``seqlen_q`` of at least 256 rows and D128, on either arch, causal or not, with or without
  the key mask (non-causal, no length promise): the 8-wave
  ping-pong (``PINGPONG``, ``MASKED_PINGPONG``) first, the table's row next (the ping-pong
  loop is built for D128 only).
* Shorter ``seqlen_q``: a 4-wave workgroup would hold idle waves; one wave, K in registers
  (``attn_interleave``, the best one-wave recipe in every ranking).

fp8 kernels take the same rows (not ranked on their own): at B16 H16 S8192 D128 the 4-wave row
models above one wave (``asmgen profile``, sustained clock: gfx942 non-causal 1137 against 1026
TFLOP/s for ``attn_interleave`` w1, gfx950 1230 against 1205).
"""
from __future__ import annotations

from ...errors import ConfigError
from ...target import ARCHES, CDNA3, CDNA4
from .config import BLOCK_K, BLOCK_Q

# (schedule, waves, kv_buffers) per (arch, head_dim, causal): the model's first at B16 H16 S8192
# bf16 with --seqlen-k-multiple 32 (TF at the sustained clock; the model's worst calibration
# error, isa.cycle.params.MODEL_ERROR, is now 3.8 % gfx942 and 10.8 % gfx950 (+-13 % / +-6 % when
# the first rows were ranked), so ranks closer than that are ties the table breaks by the
# model's order):
#   gfx942 D128  non-causal prio_interleave w4b2 571 > basic w4b2 417 > interleave w1 382
#                causal     prio_interleave w4b2 553 > basic w4b2 411 > interleave w4b2 404
#   gfx942 D64   non-causal basic w4b2 403 ~ interleave w1 402 ~ interleave w4b2 393
#                causal     interleave w4b2 440 > interleave w1 412 > prio_interleave w4b2 402
#   gfx950 D128  non-causal prio_interleave w4b3 1047 ~ w4b2 1042 > w2b2 1000
#                causal     prio_interleave w4b2 1007 ~ w4b3 1004 > w2b2 973
#   gfx950 D64   non-causal basic w1 708 > prio w4b2 674 ~ interleave w4b3 665
#                causal     prio_interleave w4b3 719 > w4b2 698 > basic w4b3 670
#   gfx942 D256  non-causal prio_interleave w4b2 756 > basic w4b2 693 = prio w4b2 > interleave
#                           w4b2 670 > interleave w1 452 > prio_interleave w2b2 256
#                causal     prio_interleave w4b2 740 > basic w4b2 679 = prio w4b2 > interleave
#                           w4b2 657 > interleave w1 448 > prio_interleave w2b2 253
#   gfx950 D256  non-causal basic w4b2 1110 = prio w4b2 ~ basic w4b3 1109 > prio_interleave
#                           w4b2 1061 > interleave w4b2 1008 > interleave w1 769 > w2b2 685
#                causal     basic w4b2 1081 = prio w4b2 ~ basic w4b3 1079 > prio_interleave
#                           w4b2 1034 > interleave w4b2 986 > interleave w1 759 > w2b2 675
# (D256 at the model's clock, 2100 / 2400 MHz: one wave per SIMD, a 4-wave workgroup per CU;
# ranked again on main 49b3bb8, the same order; at gfx942's sustained clock the order holds:
# 591@1640 > 572@1733 > 565@1771 MHz; gfx950's gaps are inside its 10.8 % worst model error,
# ties broken by the model's order; the 8-wave ping-pong is D128 only)
# (with 4 or more workgroups per CU the model's per-trip growth moves by up to 10 % with the
# emulated length, so the D64 rows are the least certain)
TABLE: dict[tuple[str, int, bool], tuple[str, int, int]] = {
    (CDNA3, 128, False): ("attn_prio_interleave", 4, 2),
    (CDNA3, 128, True): ("attn_prio_interleave", 4, 2),
    (CDNA3, 64, False): ("attn_basic", 4, 2),
    (CDNA3, 64, True): ("attn_interleave", 4, 2),
    (CDNA4, 128, False): ("attn_prio_interleave", 4, 3),
    (CDNA4, 128, True): ("attn_prio_interleave", 4, 2),
    (CDNA4, 64, False): ("attn_basic", 1, 1),
    (CDNA4, 64, True): ("attn_prio_interleave", 4, 3),
    (CDNA3, 256, False): ("attn_prio_interleave", 4, 2),
    (CDNA3, 256, True): ("attn_prio_interleave", 4, 2),
    (CDNA4, 256, False): ("attn_basic", 4, 2),
    (CDNA4, 256, True): ("attn_basic", 4, 2),
}
# Non-causal with the per-element key mask kept (``seqlen_k_multiple`` not a multiple of 32):
# the masked body is another loop, ranked again at --seqlen-k-multiple 1 over six candidates
# (prio_interleave w4b2 / w4b3, basic w4b2, interleave w4b2, interleave w1, basic w1):
#   gfx942 D128 prio_interleave w4b2 509 > interleave w4b2 410 > basic w4b2 380
#   gfx942 D64  basic w1 345 ~ interleave w1 337 ~ interleave w4b2 326
#   gfx950 D128 interleave w4b2 762 > basic w4b2 735 ~ prio_interleave w4b2 733 (w4b3 684)
#   gfx950 D64  prio_interleave w4b2 584 > w4b3 566 > interleave w4b2 518
#   gfx942 D256 prio_interleave w4b2 755 > basic w4b2 691 = prio w4b2 > interleave w4b2 668
#               (2100 MHz; 705 before the mask moved to the last partial block only)
#   gfx950 D256 basic w4b2 1106 = prio w4b2 ~ basic w4b3 1105 > prio_interleave w4b2 1058
#               (2400 MHz; 998 before)
MASKED: dict[tuple[str, int], tuple[str, int, int]] = {
    (CDNA3, 128): ("attn_prio_interleave", 4, 2),
    (CDNA3, 64): ("attn_basic", 1, 1),
    (CDNA4, 128): ("attn_interleave", 4, 2),
    (CDNA4, 64): ("attn_prio_interleave", 4, 2),
    (CDNA3, 256): ("attn_prio_interleave", 4, 2),
    (CDNA4, 256): ("attn_basic", 4, 2),
}
# The 8-wave ping-pong loop (``kinds.attention.pingpong``) where it leads by more than the model
# error, for seqlen_q of at least one 8-wave Q-block (256 rows), without the per-element key mask
# (same runs, ``benchmarks/attention.py``; TF at the sustained clock):
#   gfx942 D128  non-causal pingpong w8b3 696 > prio_interleave w4b2 654 (+6 %, worst error 3.8 %)
#                causal     pingpong w8b3 686 > prio_interleave w4b2 647 (+6 %)
#                key mask kept: 623 ~ 626 then (taken since: ``MASKED_PINGPONG`` below)
#   gfx950 D128  non-causal 1371 ~ 1370, key mask kept 1102 ~ 1073 (interleave w4b2): ties
#                within the 10.8 % error, not taken (the loop is bound by the softmax VALU the
#                two groups share, not by the MFMA / softmax overlap)
#                causal (O rescale skipped when no max changed, the causal growth over 6 blocks,
#                benchmarks/attention_rank.py --causal yes, B16 H16 and B1 H16 alike):
#                pingpong w8b3 1363 > prio_interleave w4b2 1356 > w4b3 1352, a tie taken in
#                the model's order as the table's ties are (``asmgen attention --causal`` builds
#                the model's fastest)
#                since the exp-shadow schedule: non-causal 1471 > prio_interleave w4b3 1372
#                (+7 %, inside the error: a tie taken in the model's order, as causal's is),
#                key mask kept 1465 (``MASKED_PINGPONG``)
PINGPONG: dict[tuple[str, int, bool], tuple[str, int, int]] = {
    (CDNA3, 128, False): ("attn_pingpong", 8, 3),
    (CDNA3, 128, True): ("attn_pingpong", 8, 3),
    (CDNA4, 128, False): ("attn_pingpong", 8, 3),
    (CDNA4, 128, True): ("attn_pingpong", 8, 3),
}
# ... and with the key mask kept (non-causal, no length promise: the loop branches per block,
# the masked body only on a last partial block), after the softmax phase's SALU / LDS / VMEM
# moved into the v_exp_f32 shadows (``schedules/attention_pingpong``); B16 H16 S8192 bf16,
# sustained clock (benchmarks/attention.py, asmgen profile):
#   gfx942 D128  pingpong w8b3 711 > prio_interleave w4b2 652 (+9 %, worst error 3.8 %)
#   gfx950 D128  pingpong w8b3 1465 > interleave w4b2 1253 (+17 %, worst error 10.8 %)
MASKED_PINGPONG: dict[tuple[str, int], tuple[str, int, int]] = {
    (CDNA3, 128): ("attn_pingpong", 8, 3),
    (CDNA4, 128): ("attn_pingpong", 8, 3),
}
SHORT = ("attn_interleave", 1, 1)
FALLBACK = ("attn_basic", 1, 1)     # builds for every config the others refuse


def candidates(arch: str, head_dim: int, causal: bool, seqlen_q: int,
               seqlen_k_multiple: int = 1) -> list[dict]:
    """Keywords (schedule, waves, kv_buffers) to try, best first (see the module docstring)."""
    if arch not in ARCHES:
        raise ConfigError(f"no attention defaults for arch {arch!r} (know {ARCHES})")
    rows = []
    masked = not causal and seqlen_k_multiple % BLOCK_K != 0      # AttentionConfig.key_mask
    key = (arch, head_dim, causal)
    if seqlen_q >= BLOCK_Q * 8 and not masked and key in PINGPONG:
        rows.append(PINGPONG[key])
    if seqlen_q >= BLOCK_Q * 8 and masked and (arch, head_dim) in MASKED_PINGPONG:
        rows.append(MASKED_PINGPONG[(arch, head_dim)])
    if seqlen_q >= BLOCK_Q * 4 and (arch, head_dim, causal) in TABLE:
        rows.append(MASKED[(arch, head_dim)] if masked and (arch, head_dim) in MASKED
                    else TABLE[(arch, head_dim, causal)])
    rows += [SHORT, FALLBACK]
    out = []
    for s, w, b in rows:
        kw = {"schedule": s, "waves": w, "kv_buffers": b}
        if kw not in out:
            out.append(kw)
    return out


def build_default(generate, **kw):
    """(kernel, chosen keywords) of the first candidate ``generate(schedule=..., waves=...,
    kv_buffers=..., **kw)`` accepts; the last ConfigError if none does."""
    last = None
    for cand in candidates(kw.get("arch"), kw.get("head_dim"), bool(kw.get("causal")),
                           kw.get("seqlen_q"), kw.get("seqlen_k_multiple") or 1):
        try:
            return generate(**cand, **kw), cand
        except ConfigError as exc:      # e.g. a register budget the 4-wave kernel exceeds
            last = exc
    raise last
