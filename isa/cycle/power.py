"""The clock a device sustains under load, as a function of how busy its matrix cores are.

A GEMM on MI300X/MI325X runs power-limited far below the peak engine clock (MAF: BF16 hipBLASLt
at a median 1207 MHz of 2100 at 750 W; 1447 MHz at 1000 W on MI325X); the firmware lowers the
clock until the board power fits its cap, and raises it when the load is lighter (MAF: lighter
MFMA shapes draw less power and run a higher MAF; all-zero data 1792 vs 1188 MHz; a lightly
loaded GPU runs >25 % faster on boost clock). Model (D):

* Dynamic power ``P ~ a * f^n``: ``a`` the activity (the fraction of the device's peak MFMA
  rate the load keeps busy: busy CUs x each one's MFMA duty), ``f`` the clock; ``n`` folds the
  voltage/frequency curve in. It comes from the two MAF runs of one kernel on the same silicon at
  two power caps (``power_clock_exponent``: 750 W -> 1000 W raised 1207 -> 1447 MHz at the same
  activity, n = ln(1000/750) / ln(1447/1207) = 1.58).
* At the cap ``a * f^n`` is constant, so a load of activity ``a`` runs at
  ``f_ref * (a_ref / a)^(1/n)``, capped at the peak clock; ``(f_ref, a_ref)`` is the device's
  reference run (``sustained_clock_mhz`` at ``power_ref_activity``: the MAF run's published
  TFLOP/s over the peak at its clock, or, for MI355X, the fitted point).
* A problem runs in rounds of co-resident workgroups (``report.problem_tflops``); a round's
  activity is its busy-CU fraction times the kernel's MFMA duty over a round, so the partial last
  round of a wave-quantised grid runs at a higher clock.

* The MFMA's input type weighs its power per busy pipe-clk (``power_weight_f16``,
  ``power_weight_fp8``: derived from MAF's f16 and fp8 runs beside bf16 on the same device, whose
  activity and clock are published); the duty is over the MFMA's own peak rate (fp8 runs twice
  bf16's FLOP/clk), taken from the most frequent MFMA in the kernel's streams.

Not modelled: per-instruction power (VALU/LDS/VMEM activity, 16x16 vs 32x32 MFMA shapes, data
toggling), static power (an idle device at the cap would reach the peak clock here), thermal time
constants (the clock changes per round, instantly), per-XCD clocks (MAF reports the slowest XCD).
"""
from __future__ import annotations

import math

from .model import CycleModelError


def clock_at_activity(params, activity: float) -> float:
    """MHz the device sustains at ``activity`` (MFMA duty 0..1 of the peak rate x the MFMA's power
    weight), capped at the peak clock."""
    if not 0.0 <= activity <= 2.0:
        raise CycleModelError(f"activity {activity} is outside 0..2 (duty 0..1 x power weight)")
    peak = params.clock_mhz
    if activity <= 0.0:
        return peak
    f = params.sustained_clock_mhz * (params.power_ref_activity / activity) ** (
        1.0 / params.power_clock_exponent)
    return min(peak, f)


# MFMA input type -> the power-weight parameter (bf16, the reference runs' type, weighs 1)
_WEIGHT = {"f16": "power_weight_f16", "fp8": "power_weight_fp8", "bf8": "power_weight_fp8",
           "fp8_bf8": "power_weight_fp8", "bf8_fp8": "power_weight_fp8",
           "i8": "power_weight_fp8", "f8f6f4": "power_weight_fp8"}


def mfma_load(arch: str, streams) -> tuple[float, float] | None:
    """(peak FLOP/clk/CU, power weight) of the kernel's most frequent MFMA in ``streams``
    (``WaveStream``s), or None without MFMAs: 4 SIMDs x its FLOPs / (passes x 4 clk)."""
    from collections import Counter

    from ..mfma_shapes import MfmaUnsupported, mfma_info
    from .ops import decode_op
    count: Counter = Counter()
    for st in streams:
        for ins in st.instrs:
            op = decode_op(arch, ins)
            if op.kind == "mfma":
                count[(ins.op, op.passes)] += 1
    if not count:
        return None
    (name, passes), _ = count.most_common(1)[0]
    try:
        info = mfma_info(name)
    except MfmaUnsupported:
        return None
    from .params import params_for
    p = params_for(arch)
    flops = 2.0 * info.m * info.n * info.k * info.blocks
    rate = p.simds_per_cu * flops / (passes * p.mfma_clk_per_pass)
    key = _WEIGHT.get(info.a_type if info.a_type == info.b_type else f"{info.a_type}_{info.b_type}")
    return rate, (p.value(key) if key else 1.0)


def round_activities(params, flops: float, n_wg: int, cycles_per_round: float,
                     wgs_per_cu: int = 1, mfma: tuple[float, float] | None = None) -> list[float]:
    """Activity of each round: the fraction of CUs busy in it x the kernel's MFMA duty (the flops
    of the CU's co-resident workgroups over its peak flops in one round's clk) x the MFMA's power
    weight. ``mfma``: (peak FLOP/clk/CU, weight) from ``mfma_load``; default the arch's bf16
    rate, weight 1."""
    if n_wg < 1 or wgs_per_cu < 1 or cycles_per_round <= 0:
        raise CycleModelError(f"bad problem: n_wg={n_wg}, wgs_per_cu={wgs_per_cu}, "
                              f"cycles_per_round={cycles_per_round}")
    slots = int(params.cus) * wgs_per_cu
    rounds = math.ceil(n_wg / slots)
    rate, weight = mfma or (params.mfma_flops_per_clk_cu, 1.0)
    duty = min(1.0, (flops / n_wg) * wgs_per_cu / (rate * cycles_per_round)) * weight
    out = []
    for r in range(rounds):
        busy = min(slots, n_wg - r * slots)
        out.append(duty * math.ceil(busy / wgs_per_cu) / params.cus)
    return out


def sustained(params, flops: float, n_wg: int, cycles_per_round: float,
              wgs_per_cu: int = 1, mfma: tuple[float, float] | None = None) -> dict:
    """The whole problem under the power model: per-round clocks, seconds, TFLOP/s and the
    effective clock (the one fixed clock that would give the same time)."""
    acts = round_activities(params, flops, n_wg, cycles_per_round, wgs_per_cu, mfma)
    clocks = [clock_at_activity(params, a) for a in acts]
    seconds = sum(cycles_per_round / (f * 1e6) for f in clocks)
    return {"round_clocks_mhz": [round(f, 1) for f in clocks],
            "round_activity": [round(a, 4) for a in acts],
            "seconds": seconds, "tflops": flops / seconds / 1e12,
            "clock_mhz": len(clocks) * cycles_per_round / seconds / 1e6}
