"""``asmgen profile DIR/k.json [--trace t.json] [--svg t.svg] [--json]``: modeled performance of a
kernel from its launch contract, by the cycle model of ``isa.cycle``.

How: the kernel runs on the emulator (``isa.emu``, trace on) for one workgroup of a small problem
(GEMM: one tile, ``--iters`` K-loop iterations); the trace gives each wave's dynamic instruction
stream; the streams of ``wgs_per_cu`` co-resident workgroups (from the kernel's occupancy: waves
per SIMD and LDS) run on one modeled CU. For a GEMM the steady-state cycles per K iteration
extrapolate the run to the contract's K, and the rounds of workgroups over the device's CUs give
the whole-problem time and TFLOP/s (``isa.cycle.report.problem_tflops``).

``--json`` prints one object with at least ``cycles`` (whole kernel, clk), ``cycles_per_iter``,
``mfma_busy`` (0..1, steady-state K loop), ``tflops`` (modeled, whole problem) and ``stalls``.
"""
from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np

from .errors import AsmgenError, ConfigError

DEFAULT_ITERS = 8


class ProfileError(AsmgenError):
    """The kernel could not be profiled: it failed on the emulator or the model rejected it."""


def register(sub) -> None:
    p = sub.add_parser("profile", help="modeled cycles / MFMA busy / TFLOP/s of a kernel (cycle model)")
    p.add_argument("contract", help="DIR/<kernel>.json written by asmgen gemm")
    p.add_argument("--trace", help="write a Chrome/Perfetto trace JSON here")
    p.add_argument("--svg", help="write an SVG timeline here")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--iters", type=int, default=DEFAULT_ITERS,
                   help=f"K-loop iterations to emulate (default {DEFAULT_ITERS})")
    p.add_argument("--device", help="MI300X | MI325X | MI355X (default: by arch)")
    p.add_argument("--wgs-per-cu", type=int, help="co-resident workgroups per CU (default: occupancy)")
    p.add_argument("--clock-mhz", type=float, help="clock for TFLOP/s (default: the device's peak)")
    p.add_argument("--loop", help="K-loop region as LO:HI instruction indices (head pc : backward "
                                  "branch pc); default: the most frequent backward jump")
    p.set_defaults(func=run)


def run(args) -> int:
    from isa.cycle.report import write_chrome_trace
    loop = None
    if args.loop:
        try:
            lo, hi = (int(x, 0) for x in args.loop.split(":"))
        except ValueError:
            raise ConfigError(f"--loop {args.loop!r} is not LO:HI (two instruction indices)") from None
        loop = (lo, hi)
    out = profile(args.contract, iters=args.iters, device=args.device, wgs_per_cu=args.wgs_per_cu,
                  clock_mhz=args.clock_mhz, keep_result=bool(args.trace or args.svg), loop=loop)
    res = out.pop("_result", None)
    if args.trace:
        write_chrome_trace(res, args.trace)
    if args.svg:
        Path(args.svg).write_text(_svg(res, out))
    if args.json:
        print(json.dumps(out, indent=1))
    else:
        print(format_text(out))
    return 0


# ----------------------------------------------------------------------------------------------
def _load(src) -> tuple[dict, bytes]:
    if hasattr(src, "meta") and hasattr(src, "hsaco"):
        return src.meta, src.hsaco
    path = Path(src)
    if not path.is_file():
        raise ConfigError(f"kernel contract {str(path)!r} does not exist")
    try:
        meta = json.loads(path.read_text())
    except json.JSONDecodeError as exc:
        raise ConfigError(f"{path} is not valid JSON: {exc}") from None
    for key in ("kernel", "arch", "grid", "block", "args"):
        if key not in meta:
            raise ConfigError(f"{path}: the contract lacks the key {key!r}")
    hsaco = path.with_suffix(".hsaco")
    if not hsaco.is_file():
        raise ConfigError(f"{path}: the code object {hsaco} is missing")
    return meta, hsaco.read_bytes()


def _gemm_problem(meta: dict, iters: int) -> dict:
    """Full and profiled sizes of a GEMM contract."""
    cfg = meta["config"]
    vals = {a["name"]: a.get("value") for a in meta["args"] if a["kind"] == "scalar"}
    m, n, k = (int(vals.get(x) or cfg[x.lower()]) for x in ("M", "N", "K"))
    tm, tn, tk = cfg["tile"]
    k_iters = math.ceil(k / tk)
    small_iters = max(1, min(k_iters, iters))
    return {"m": m, "n": n, "k": k, "tile": (tm, tn, tk), "k_iters": k_iters,
            "small": {"M": tm, "N": tn, "K": small_iters * tk}, "small_iters": small_iters,
            "n_wg": math.ceil(m / tm) * math.ceil(n / tn), "flops": 2.0 * m * n * k,
            "layout": cfg.get("layout", "NN")}


def _gemm_values(meta: dict, small: dict, seed: int) -> dict:
    """Buffers and scalars of the profiled GEMM (random data, packed leading dimensions)."""
    from .reference import np_dtype
    lay = meta["config"].get("layout", "NN")
    M, N, K = small["M"], small["N"], small["K"]
    shapes = {"A": (K, M) if lay[0] == "T" else (M, K), "B": (N, K) if lay[1] == "T" else (K, N),
              "C": (M, N)}
    rng = np.random.default_rng(seed)
    vals: dict = {"M": M, "N": N, "K": K, "lda": shapes["A"][1], "ldb": shapes["B"][1], "ldc": N}
    for a in meta["args"]:
        if a["kind"] == "buffer":
            shape = shapes.get(a["name"], tuple(a.get("shape") or (1,)))
            if a["name"] == "bias":
                shape = (N,)
            vals[a["name"]] = rng.uniform(-1, 1, size=shape).astype(np_dtype(a["dtype"]))
    return vals


def emulate_streams(meta: dict, hsaco: bytes, values: dict, seed: int = 0):
    """Run one workgroup (grid 1x1x1) with ``values`` on the emulator, trace on; per-wave streams."""
    from isa.cycle import streams_from_trace
    from isa.emu import Emulator

    from .kernarg import as_args, pack_kernargs
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
    from isa.emu.errors import EmulatorError
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
    waves_wg = max(1, math.ceil(int(np.prod(meta["block"])) / 64))
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


def profile(src, iters: int = DEFAULT_ITERS, device: str | None = None,
            wgs_per_cu: int | None = None, clock_mhz: float | None = None, seed: int = 0,
            keep_result: bool = False, loop: tuple[int, int] | None = None) -> dict:
    """Modeled performance of a kernel (a ``Kernel`` or a contract path); see the module doc."""
    from isa.cycle import CuModel, params_for
    from isa.cycle.report import problem_tflops, summarize
    from isa.errors import IsaError
    meta, hsaco = _load(src)
    if iters < 1:
        raise ConfigError(f"--iters {iters} must be at least 1")
    kind = meta.get("config", {}).get("kind")
    if kind != "gemm":
        raise ConfigError(f"profile supports GEMM contracts (config.kind 'gemm'); this one has "
                          f"kind {kind!r}")
    try:
        params = params_for(meta["arch"], device)
    except IsaError as exc:   # isa errors are not asmgen errors: report them as bad input
        raise ConfigError(str(exc)) from None
    prob = _gemm_problem(meta, iters)
    streams = emulate_streams(meta, hsaco, _gemm_values(meta, prob["small"], seed), seed)
    copies = wgs_per_cu or co_resident(meta, params)
    if copies * len(streams) > params.max_waves_per_simd * params.simds_per_cu:
        raise ConfigError(f"--wgs-per-cu {copies} x {len(streams)} waves exceeds "
                          f"{int(params.max_waves_per_simd * params.simds_per_cu)} waves per CU")
    tm, tn, _ = prob["tile"]
    dt = 2  # f16/bf16 inputs (asmgen.config IN_DTYPES)
    loaded = prob["n_wg"] * (tm + tn) * prob["k"] * dt
    unique = (prob["m"] + prob["n"]) * prob["k"] * dt
    hbm_fraction = min(1.0, unique / loaded)
    try:
        res = CuModel(meta["arch"], params, hbm_fraction).run(replicate(streams, copies))
    except IsaError as exc:
        raise ProfileError(f"cycle model: {exc}") from None
    summ = summarize(res, loop=loop)
    cpi = summ["cycles_per_iter"]
    extra_iters = prob["k_iters"] - prob["small_iters"]
    if extra_iters and cpi is None:
        raise AsmgenError("profile: no K loop found in the emulated streams (need >= 2 iterations "
                          "to extrapolate); raise --iters")
    per_round = res.cycles + extra_iters * (cpi or 0.0)
    perf = problem_tflops(params, prob["flops"], prob["n_wg"], per_round, copies, clock_mhz)
    out = {"kernel": meta["kernel"], "arch": meta["arch"], "device": params.device,
           "schedule": meta.get("schedule"),
           "cycles": perf["rounds"] * per_round, "cycles_per_iter": cpi,
           "cycles_per_round": per_round, "mfma_busy": summ["mfma_busy"],
           "mfma_busy_per_simd": summ["mfma_busy_per_simd"], "tflops": perf["tflops"],
           "stalls": summ["stalls"], "problem": {k: prob[k] for k in ("m", "n", "k", "n_wg", "flops")},
           "wgs_per_cu": copies, "hbm_fraction": hbm_fraction, "perf": perf,
           "emulated": {"k": prob["small"]["K"], "k_iters": prob["small_iters"],
                        "cycles": res.cycles, "loop": summ["loop"], "iterations": summ["iterations"],
                        "instructions": summ["instructions"], "waves": len(streams)},
           "stalls_per_wave": summ["stalls_per_wave"]}
    if keep_result:
        out["_result"] = res
        out["_steady_window"] = summ["steady_window"]
    return out


def _svg(res, out: dict) -> str:
    from isa.cycle.report import svg_timeline
    win = out.get("_steady_window")
    cpi = out.get("cycles_per_iter")
    window = (win[0], min(win[1], win[0] + 3 * cpi)) if win and cpi else None
    return svg_timeline(res, window)


def format_text(out: dict) -> str:
    p = out["perf"]
    lines = [f"{out['kernel']} on {out['device']} ({out['arch']}), schedule {out['schedule']}",
             f"  cycles per K iteration : {out['cycles_per_iter']}",
             f"  MFMA busy (steady)     : {100 * out['mfma_busy']:.1f} %",
             (f"  cycles per round       : {out['cycles_per_round']:.0f} ({out['wgs_per_cu']} WG/CU, "
              f"{p['rounds']} rounds over {p['cus']} CUs)"),
             (f"  modeled TFLOP/s        : {out['tflops']:.1f} at {p['clock_mhz']:.0f} MHz "
              f"({100 * p['fraction_of_peak']:.1f} % of {p['peak_tflops']:.0f})"),
             "  stalls (wave-clk)      : " + ", ".join(f"{k} {v:.0f}" for k, v in out["stalls"].items())]
    return "\n".join(lines)
