"""Shared pieces of ``asmgen profile`` (any kernel kind): reading the contract, running one
workgroup of a small problem on the emulator with trace on, co-residency per CU, the cycle-model
run and its summary, the report dict every profile returns (``report``), the text report and the
SVG window.

The per-kind modules (``asmgen.kinds.gemm.profile``, ``asmgen.kinds.attention.profile``) choose the small problem, its
data, and how its measured cycles extrapolate to the contract's whole problem.
"""
from __future__ import annotations

import math

from ..errors import AsmgenError, ConfigError

DEFAULT_ITERS = 8


class ProfileError(AsmgenError):
    """The kernel could not be profiled: it failed on the emulator or the model rejected it."""


def read_contract(src) -> tuple[dict, bytes]:
    """(meta, hsaco) of a ``Kernel`` or a ``DIR/<kernel>.json`` contract path (``asmgen.api``'s
    reader: missing file, bad JSON, missing keys or code object raise ``ConfigError``)."""
    from ..runtime.emu import read_contract as read
    return read(src)


def arch_params(meta: dict, device: str | None):
    """The cycle model's parameters for the contract's arch (and ``device``), isa errors reported
    as bad input."""
    from isa.cycle import params_for
    from isa.errors import IsaError
    try:
        return params_for(meta["arch"], device)
    except IsaError as exc:   # isa errors are not asmgen errors: report them as bad input
        raise ConfigError(str(exc)) from None


def emulate_streams(meta: dict, hsaco: bytes, values: dict, seed: int = 0):
    """Run one workgroup (grid 1x1x1) with ``values`` on the emulator, trace on; per-wave streams.
    Scalars missing from ``values`` take the contract's value."""
    import numpy as np

    from isa.cycle import streams_from_trace
    from isa.emu import Emulator
    from isa.emu.errors import EmulatorError

    from ..kernarg import as_args, pack_kernargs
    emu = Emulator(arch=meta["arch"], seed=seed, trace=True)
    args = as_args(meta["args"])
    packed = {}
    for a in args:
        if a.kind == "buffer":
            if a.name not in values:
                raise ConfigError(f"profile: no data for buffer argument {a.name}")
            packed[a.name] = emu.alloc(np.ascontiguousarray(values[a.name]), a.name)
        else:
            packed[a.name] = values.get(a.name, a.value)
    try:
        emu.launch(hsaco, meta["kernel"], grid=(1, 1, 1), block=tuple(meta["block"]),
                   kernargs=pack_kernargs(args, packed))
    except EmulatorError as exc:
        raise ProfileError(f"{meta['kernel']} failed on the emulator, no stream to model: {exc}") from None
    return streams_from_trace(emu.trace)


def co_resident(meta: dict, params) -> int:
    """Workgroups one CU holds at once: by waves per SIMD (the kernel's register occupancy) and by
    LDS (facts §1)."""
    res = meta.get("resources", {})
    waves_wg = max(1, math.ceil(int(math.prod(meta["block"])) / 64))
    per_simd = int(res.get("waves_per_simd", params.max_waves_per_simd))
    by_waves = max(1, (per_simd * int(params.simds_per_cu)) // waves_wg)
    lds = int(meta.get("lds_bytes", 0))
    by_lds = int(params.lds_bytes_cu) // lds if lds else by_waves
    return max(1, min(by_waves, by_lds))


def replicate(streams: list, copies: int) -> list:
    """``copies`` workgroups running the same streams; waves numbered on so SIMDs alternate."""
    from isa.cycle import WaveStream
    nw = len(streams)
    out = []
    for c in range(copies):
        for i, s in enumerate(streams):
            wave = c * nw + i
            out.append(WaveStream(wave=wave, instrs=s.instrs, wg=c, simd=wave % 4, pcs=s.pcs,
                                  lds_conflicts=s.lds_conflicts))
    return out


def model_cu(meta: dict, params, streams: list, wgs_per_cu: int | None, hbm_fraction: float,
             loop: tuple[int, int] | None, vmem_latency: float | None = None):
    """Run ``copies`` co-resident copies of ``streams`` on one modeled CU; (copies, SimResult,
    ``isa.cycle.report.summarize`` of it). ``vmem_latency``: the mean load latency of the device
    model (``isa.cycle.problem.loaded_latency``), else the L2/HBM mix of ``hbm_fraction``."""
    from isa.cycle import CuModel
    from isa.cycle.report import summarize
    from isa.errors import IsaError
    copies = wgs_per_cu or co_resident(meta, params)
    if copies * len(streams) > params.max_waves_per_simd * params.simds_per_cu:
        raise ConfigError(f"--wgs-per-cu {copies} x {len(streams)} waves exceeds "
                          f"{int(params.max_waves_per_simd * params.simds_per_cu)} waves per CU")
    try:
        res = CuModel(meta["arch"], params, hbm_fraction, vmem_latency).run(replicate(streams, copies))
    except IsaError as exc:
        raise ProfileError(f"cycle model: {exc}") from None
    return copies, res, summarize(res, loop=loop)


def cu_trip_cycles(meta: dict, hsaco: bytes, params, values_more: dict, copies: int,
                   hbm_fraction: float, loop, base_cycles: float, cpi_wave: float | None,
                   seed: int, more_trips: int = 2, vmem_latency: float | None = None
                   ) -> tuple[float | None, str]:
    """(cycles per loop trip to extrapolate with, which measure it is). One workgroup per CU: its
    waves' own trip time. Several co-resident workgroups need not loop in step (the arbiter
    favours the oldest wave, one VMEM channel serves them in order), so a wave's trip time can
    understate the CU's: then a second run with ``more_trips`` more trips (``values_more``) gives
    the growth of the whole CU's cycles per trip, and the larger of the two is used."""
    if copies <= 1 or cpi_wave is None:
        return cpi_wave, "cycles_per_iter_wave"
    streams = emulate_streams(meta, hsaco, values_more, seed)
    _, res2, _ = model_cu(meta, params, streams, copies, hbm_fraction, loop, vmem_latency)
    growth = (res2.cycles - base_cycles) / more_trips
    if growth <= cpi_wave:
        return cpi_wave, "cycles_per_iter_wave"
    return growth, "cycles_per_iter_cu"


def report(meta: dict, params, res, summ: dict, waves: int, emulated: dict, keep_result: bool,
           **fields) -> dict:
    """The dict a profile returns (``asmgen profile --json``): the contract's kernel and arch and
    the device, then ``fields`` in the caller's order, then ``emulated`` (what was emulated) with
    the emulated run's cycles, loop, iterations, instructions and ``waves``, then the stalls per
    wave; with ``keep_result`` also the cycle model's result (``_result``) and its steady window
    (``_steady_window``)."""
    out = {"kernel": meta["kernel"], "arch": meta["arch"], "device": params.device, **fields,
           "emulated": {**emulated, "cycles": res.cycles, "loop": summ["loop"],
                        "iterations": summ["iterations"], "instructions": summ["instructions"],
                        "waves": waves},
           "stalls_per_wave": summ["stalls_per_wave"]}
    if keep_result:
        out["_result"] = res
        out["_steady_window"] = summ["steady_window"]
    return out


def svg(res, out: dict) -> str:
    """SVG timeline of about three steady-state loop iterations (the whole run without a loop)."""
    from isa.cycle.report import svg_timeline
    win = out.get("_steady_window")
    cpi = out.get("cycles_per_iter")
    window = (win[0], min(win[1], win[0] + 3 * cpi)) if win and cpi else None
    return svg_timeline(res, window)


def sustained_clock(out: dict) -> float:
    """The clock the kernel sustains on its device: the power-limited clock of its load
    (``isa.cycle.power``, the effective clock over its rounds) when the profile has it, else the
    device's reference GEMM clock (``isa.cycle.params``)."""
    sus = (out.get("perf") or {}).get("sustained")
    if sus:
        return sus["clock_mhz"]
    from isa.cycle import params_for
    return params_for(out["arch"], out["device"]).sustained_clock_mhz


def sustained_tflops(out: dict) -> float:
    """Modeled TFLOP/s at the sustained clock: the same cycles, each round at its power-limited
    clock (published measurements ran power-limited, cdna-timing section 5)."""
    sus = (out.get("perf") or {}).get("sustained")
    if sus:
        return sus["tflops"]
    return out["tflops"] * sustained_clock(out) / out["perf"]["clock_mhz"]


def format_text(out: dict) -> str:
    p = out["perf"]
    what = out.get("iter_name", "K iteration")
    cpi = out["cycles_per_iter"]
    lines = [f"{out['kernel']} on {out['device']} ({out['arch']}), schedule {out['schedule']}",
             f"  cycles per {what:<12}: {'n/a (no loop)' if cpi is None else f'{cpi:.1f}'}",
             f"  MFMA busy (steady)     : {100 * out['mfma_busy']:.1f} %",
             (f"  cycles per round       : {out['cycles_per_round']:.0f} ({out['wgs_per_cu']} WG/CU, "
              f"{p['rounds']} rounds over {p['cus']} CUs)"),
             (f"  modeled TFLOP/s        : {out['tflops']:.1f} at {p['clock_mhz']:.0f} MHz "
              f"({100 * p['fraction_of_peak']:.1f} % of {p['peak_tflops']:.0f})"),
             (f"  at sustained clock     : {sustained_tflops(out):.1f} at "
              f"{sustained_clock(out):.0f} MHz (power-limited, isa.cycle.power)"),
             "  stalls (wave-clk)      : " + ", ".join(f"{k} {v:.0f}" for k, v in out["stalls"].items())]
    if out.get("achieved_tbps") is not None:       # memory-bound kinds (decode): bandwidth
        lines.append(f"  modeled HBM traffic    : {out['achieved_tbps']:.2f} TB/s = "
                     f"{100 * out['fraction_of_hbm_peak']:.1f} % of peak, "
                     f"{100 * out['fraction_of_hbm_achievable']:.1f} % of the measured "
                     f"achievable ({out['bytes']['total'] / 1e6:.1f} MB in "
                     f"{1e6 * out['seconds']:.1f} us; time set by {out['time_set_by']})")
        lines.append(f"  tokens per second      : {out['tokens_per_second']:.0f}")
    rs = out.get("rescale_skip")
    if rs:       # attention ping-pong: the O-rescale branch, both data shapes (kinds.attention)
        st, sp = rs["stable"], rs["stable_perf"]
        sus = (sp.get("sustained") or {}).get("tflops")
        lines.append(f"  O-rescale skip         : the figures above rescale O every block; with "
                     f"no row max changing: {st['tflops']:.1f} TFLOP/s"
                     + (f" ({sus:.1f} sustained)" if sus else "")
                     + f", MFMA busy {100 * st['mfma_busy']:.1f} %, "
                     f"{st['cycles_per_iter']:.1f} clk per {what}")
    b = out.get("bound")
    if b:
        shares = sorted(b["shares"].items(), key=lambda kv: -kv[1])
        lines.append(f"  bound by               : {b['bound']} ("
                     + ", ".join(f"{k} {100 * v:.0f} %" for k, v in shares if v > 0.005) + ")")
    u = out.get("uncertainty")
    if u:
        lines.append("  uncertainty            : " + (
            f"median {100 * u['median']:.0f} %, worst {100 * u['worst']:.0f} % over {u['figures']} "
            f"published figures ({u['run']})" if u.get("median") is not None else u["run"]))
    if out.get("allowed_hazards"):
        lines.append("  allowed hazards        : " + ", ".join(
            f"{k} x{n}" for k, n in out["allowed_hazards"].items()) + " (the contract allows them)")
    if out.get("hazard_checked") is False:
        lines.append("  note                   : emulated with the hazard judge off (contract says so)")
    return "\n".join(lines)
