"""``asmgen profile DIR/k.json [--trace t.json] [--svg t.svg] [--json]``: modeled performance of a
kernel from its launch contract, by the cycle model of ``isa.cycle``.

How: the kernel runs on the emulator (``isa.emu``, trace on) for one workgroup of a small problem
(GEMM: one tile, ``--iters`` K-loop iterations; attention: one Q-block, ``--iters`` KV blocks);
the trace gives each wave's dynamic instruction stream; the streams of ``wgs_per_cu`` co-resident
workgroups (from the kernel's occupancy: waves per SIMD and LDS) run on one modeled CU. The
steady-state cycles per loop iteration extrapolate the run to the contract's sizes, and the
workgroups dealt over the device's CUs give the whole-problem time and TFLOP/s
(``isa.cycle.report.problem_tflops``). Per kind: ``asmgen.kinds.gemm.profile``, ``asmgen.kinds.attention.profile``; shared
pieces: ``asmgen.profiling.common``.

``--json`` prints one object with at least ``cycles`` (whole kernel, clk), ``cycles_per_iter``,
``mfma_busy`` (0..1, steady-state loop), ``tflops`` (modeled, whole problem, at the peak clock
or ``--clock-mhz``), ``tflops_sustained`` (at the power-limited clock of the kernel's load, ``isa.cycle.power``) and ``stalls``.
"""
from __future__ import annotations

import json
import math
from pathlib import Path

from ..errors import ConfigError
from ..profiling.common import (
    DEFAULT_ITERS,
    ProfileError,
    format_text,
    read_contract,
    sustained_clock,
    sustained_tflops,
    svg,
)

__all__ = ["DEFAULT_ITERS", "ProfileError", "format_text", "profile", "register", "run"]




HELP = "modeled cycles / MFMA busy / TFLOP/s of a kernel (cycle model)"


def register(sub, wanted: str | None = None) -> None:
    """Add ``profile``; only its name and help unless ``wanted`` is None or "profile"."""
    if wanted not in (None, "profile"):
        sub.add_parser("profile", help=HELP)
        return
    p = sub.add_parser("profile", help=HELP)
    p.add_argument("contract", help="DIR/<kernel>.json written by asmgen gemm or asmgen attention, "
                                    "or a launch contract beside a foreign .hsaco (README)")
    p.add_argument("--trace", help="write a Chrome/Perfetto trace JSON here")
    p.add_argument("--svg", help="write an SVG timeline here")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--iters", type=int, default=DEFAULT_ITERS,
                   help=f"loop iterations to emulate: GEMM K tiles, attention KV blocks "
                        f"(default {DEFAULT_ITERS})")
    p.add_argument("--device", help="MI300X | MI325X | MI355X (default: by arch)")
    p.add_argument("--wgs-per-cu", type=int, help="co-resident workgroups per CU (default: occupancy)")
    p.add_argument("--clock-mhz", type=float, help="clock for TFLOP/s (default: the device's peak)")
    p.add_argument("--loop", help="loop region as LO:HI instruction indices (head pc : backward "
                                  "branch pc); default: the most frequent backward jump")
    p.set_defaults(func=run)


def parse_loop(text: str) -> tuple[int, int]:
    """``--loop LO:HI``: two instruction indices, the head below the backward branch."""
    try:
        lo, hi = (int(x, 0) for x in text.split(":"))
    except ValueError:
        raise ConfigError(f"--loop {text!r} is not LO:HI (two instruction indices)") from None
    if lo < 0 or lo >= hi:
        raise ConfigError(f"--loop {text}: the head pc {lo} must be below the branch pc {hi} "
                          "(and >= 0)")
    return lo, hi


def check_clock(mhz: float | None) -> None:
    if mhz is not None and not (math.isfinite(mhz) and 0 < mhz <= 10000):
        raise ConfigError(f"--clock-mhz {mhz} must be a clock in (0, 10000] MHz")


def run(args) -> int:
    """Every option and output path is checked before any emulation; the report is printed
    before the trace and SVG are written, each atomically (``asmgen.outputs``)."""
    from ..outputs import check_writable, write_bytes_atomic
    loop = parse_loop(args.loop) if args.loop else None
    check_clock(args.clock_mhz)
    for opt, path in (("--trace", args.trace), ("--svg", args.svg)):
        if path:
            check_writable(path, opt)
    out = profile(args.contract, iters=args.iters, device=args.device, wgs_per_cu=args.wgs_per_cu,
                  clock_mhz=args.clock_mhz, keep_result=bool(args.trace or args.svg), loop=loop)
    res = out.pop("_result", None)
    out.pop("_steady_window", None)
    if args.json:
        print(json.dumps(out, indent=1), flush=True)
    else:
        print(format_text(out), flush=True)
    if args.svg:
        write_bytes_atomic(args.svg, svg(res, out), "--svg")
    if args.trace:
        import os
        import tempfile

        from isa.cycle.report import write_chrome_trace
        check_writable(args.trace, "--trace")
        fd, tmp = tempfile.mkstemp(prefix=".trace.tmp-", dir=os.path.dirname(os.path.abspath(args.trace)))
        os.close(fd)
        try:
            write_chrome_trace(res, tmp)
            os.replace(tmp, args.trace)
        finally:
            if os.path.exists(tmp):
                os.unlink(tmp)
    return 0


def _is_launch_contract(src) -> bool:
    """A path to a ``.json`` whose ``format`` is the launch-contract format."""
    from ..profiling.launch import is_launch_contract
    if not isinstance(src, str | Path) or not str(src).endswith(".json"):
        return False
    try:
        return is_launch_contract(json.loads(Path(src).read_text()))
    except (OSError, ValueError):
        return False


def profile(src, iters: int = DEFAULT_ITERS, device: str | None = None,
            wgs_per_cu: int | None = None, clock_mhz: float | None = None, seed: int = 0,
            keep_result: bool = False, loop: tuple[int, int] | None = None) -> dict:
    """Modeled performance of a kernel (a ``Kernel``, a contract path or a launch contract of a
    foreign code object); see the module doc. ``keep_result`` adds ``_result`` (the
    ``SimResult``) and ``_steady_window``."""
    if iters < 1:
        raise ConfigError(f"--iters {iters} must be at least 1")
    check_clock(clock_mhz)
    if wgs_per_cu is not None and wgs_per_cu < 1:
        raise ConfigError(f"--wgs-per-cu {wgs_per_cu} must be at least 1")
    if _is_launch_contract(src):
        from ..profiling.launch_profile import profile_launch
        out = profile_launch(src, iters=None if iters == DEFAULT_ITERS else iters, device=device,
                             wgs_per_cu=wgs_per_cu, clock_mhz=clock_mhz, seed=seed,
                             keep_result=keep_result, loop=loop)
        out["sustained_clock_mhz"] = sustained_clock(out)
        out["tflops_sustained"] = sustained_tflops(out)
        return out
    from ..kinds.consistency import read_checked
    meta, hsaco = read_checked(src)
    from ..kinds import registry
    kind = registry.of_contract(meta)
    if kind.profile is None:
        with_profile = [k.name for k in registry.all_kinds() if k.profile is not None]
        raise ConfigError(f"kernel kind {kind.name!r} has no profile hook (kinds with one: "
                          f"{with_profile})")
    extra = {}
    if hasattr(kind, "profile_companions"):     # other launches of the same step (decode_combine)
        from ..api import generate
        extra = kind.profile_companions(meta, generate)
    out = kind.profile(meta, hsaco, iters=iters, device=device, wgs_per_cu=wgs_per_cu,
                       clock_mhz=clock_mhz, seed=seed, keep_result=keep_result, loop=loop, **extra)
    out["sustained_clock_mhz"] = sustained_clock(out)
    out["tflops_sustained"] = sustained_tflops(out)
    return out
