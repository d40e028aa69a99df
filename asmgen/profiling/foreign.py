"""Profile a code object asmgen did not generate (Triton's, LLVM-compiled OpenCL or HIP) with the
same cycle model as ``asmgen profile``, given its kernel name, workgroup size and argument values.

``asmgen profile`` starts from an asmgen launch contract (``DIR/<kernel>.json``); a foreign code
object has none, so this module builds the equivalent from the code object itself (AMDGPUUsage
"Code Object V5 Metadata", cdna-facts §8): the explicit arguments come from the metadata's
``.args`` (hidden ones are the emulator's business), the register budget from the kernel
descriptor, LDS = static group segment + the dynamic LDS the launcher passes (Triton passes its
``metadata.shared`` as dynamic LDS, its descriptors say 0 static bytes).

The measurement itself is ``asmgen profile``'s: one workgroup of a small problem runs on the
emulator with trace on, ``asmgen.profiling.common.model_cu`` runs ``wgs_per_cu`` co-resident copies of its
wave streams on one modeled CU, the steady-state cycles per loop iteration extrapolate the run to
the full problem's loop trip count, and ``isa.cycle.report.problem_tflops`` deals the full
problem's workgroups over the device's CUs (wave quantisation). What the loop iterates over and
how many FLOPs the problem has is the caller's knowledge (``flops``, ``n_wg``, ``loop_iters``).

A GEMM-shaped peer whose tile grid is known (``tiles``, an ``isa.cycle.problem.TileGrid``: sizes,
tile, the order its program ids walk the tiles in, bytes per element) is charged as asmgen's own
GEMMs are (``asmgen.kinds.gemm.profile``): the grid's per-XCD L2 / MALL / HBM traffic sets the
load latency and floors every loop trip (``asmgen.profiling.device.floored_round``, one function
for both), and the sustained clock weighs the kernel's own MFMA (``isa.cycle.power.mfma_load``).
"""
from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..errors import ConfigError, KernargError
from ..kernarg import ArgSpec, layout, pack_kernargs
from .common import ProfileError, arch_params, co_resident, model_cu, report
from .device import floored_round, grid_traffic, uncertainty

__all__ = ["ForeignKernel", "contract", "foreign_args", "launch", "profile_foreign"]

# by_value argument size -> default dtype (a caller overrides per name with ``scalar_dtypes``)
_SCALAR_BY_SIZE = {1: "i8", 2: "i16", 4: "i32", 8: "i64"}
# unified VGPR+AGPR file per lane and wave slots per SIMD (cdna-facts §1: occupancy =
# min(8, floor(512 / total VGPRs)))
_VGPRS_PER_LANE = 512
_MAX_WAVES_PER_SIMD = 8


@dataclass(frozen=True)
class ForeignKernel:
    """One kernel of a foreign code object and how it is launched.

    ``names`` name the explicit arguments in order (the metadata's ``.name`` entries, or ``arg0``,
    ``arg1``, ... are used when not given); ``dynamic_lds`` is the launcher's dynamic LDS bytes."""

    hsaco: bytes
    kernel: str
    block: tuple[int, int, int]
    dynamic_lds: int = 0
    names: tuple[str, ...] | None = None

    def __post_init__(self) -> None:
        blk = tuple(int(x) for x in self.block) + (1,) * (3 - len(tuple(self.block)))
        if len(blk) != 3 or min(blk) < 1 or blk[0] * blk[1] * blk[2] > 1024:
            raise ConfigError(f"block {self.block!r} must be 1 to 3 positive sizes with at most "
                              "1024 work-items")
        object.__setattr__(self, "block", blk)
        if self.dynamic_lds < 0:
            raise ConfigError(f"dynamic_lds {self.dynamic_lds} must be >= 0")
        if self.names is not None:
            object.__setattr__(self, "names", tuple(self.names))

    def info(self):
        """The ``isa.codeobj.KernelInfo`` of ``kernel`` (descriptor, metadata, code)."""
        from isa.codeobj import CodeObject
        from isa.errors import IsaError
        try:
            return CodeObject.from_bytes(self.hsaco).kernel(self.kernel)
        except IsaError as exc:
            raise ConfigError(f"foreign code object: {exc}") from None


def foreign_args(fk: ForeignKernel, scalar_dtypes: Mapping[str, str] | None = None
                 ) -> tuple[ArgSpec, ...]:
    """The explicit arguments of the kernel as ``ArgSpec``s, from its metadata ``.args``.

    ``global_buffer`` becomes a buffer, ``by_value`` a scalar whose dtype is ``scalar_dtypes[name]``
    or the signed integer of its size, ``dynamic_shared_pointer`` a u32 LDS offset. The contract layout (each argument aligned to its own size)
    must reproduce the metadata offsets; a kernel whose layout differs is rejected."""
    info = fk.info()
    md_args = [a for a in info.args if not str(a.get(".value_kind", "")).startswith("hidden_")]
    if not md_args and info.kernarg_segment_size and not info.args:
        raise KernargError(f"kernel {fk.kernel}: the code object has no .args metadata; cannot "
                           "lay out its arguments")
    if fk.names is not None and len(fk.names) != len(md_args):
        raise KernargError(f"kernel {fk.kernel} has {len(md_args)} explicit arguments, "
                           f"{len(fk.names)} names were given: {list(fk.names)}")
    dtypes = dict(scalar_dtypes or {})
    specs = []
    for i, a in enumerate(md_args):
        name = fk.names[i] if fk.names is not None else str(a.get(".name") or f"arg{i}")
        kind, size = str(a.get(".value_kind")), int(a.get(".size", 0))
        if kind == "global_buffer":
            specs.append(ArgSpec(name, "buffer", "u32"))
        elif kind == "by_value":
            if size not in _SCALAR_BY_SIZE:
                raise KernargError(f"argument {name}: by_value of {size} bytes (know "
                                   f"{sorted(_SCALAR_BY_SIZE)})")
            dt = dtypes.pop(name, _SCALAR_BY_SIZE[size])
            spec = ArgSpec(name, "scalar", dt)
            if spec.size != size:
                raise KernargError(f"argument {name}: dtype {dt} is {spec.size} bytes, the "
                                   f"metadata says {size}")
            specs.append(spec)
        elif kind == "dynamic_shared_pointer":
            # an OpenCL __local pointer argument: a 32-bit LDS byte offset the launcher chooses
            # (AMDGPUUsage "Code Object V3+ Metadata", .value_kind dynamic_shared_pointer)
            specs.append(ArgSpec(name, "scalar", "u32"))
        else:
            raise KernargError(f"argument {name}: value kind {kind!r} is not supported (global_buffer, "
                               "by_value, dynamic_shared_pointer, hidden_*)")
    if dtypes:
        raise KernargError(f"scalar_dtypes name unknown arguments {sorted(dtypes)}")
    for slot, a in zip(layout(specs), md_args, strict=True):
        if slot.offset != int(a[".offset"]):
            raise KernargError(f"argument {slot.arg.name}: metadata offset {a['.offset']}, the "
                               f"contract layout gives {slot.offset}")
    return tuple(specs)


def contract(fk: ForeignKernel, scalar_dtypes: Mapping[str, str] | None = None) -> dict:
    """An asmgen-style launch contract (design.md "Contracts") for one workgroup of the kernel:
    what ``asmgen.profiling.common`` reads (arch, kernel, block, args, lds_bytes, resources)."""
    info = fk.info()
    d = info.descriptor
    vgprs = d.vgpr_alloc
    return {"kernel": fk.kernel, "arch": d.arch, "grid": [1, 1, 1], "block": list(fk.block),
            "lds_bytes": int(d.group_segment_fixed_size) + int(fk.dynamic_lds),
            "kernarg_size": info.kernarg_segment_size,
            "args": [a.to_dict() for a in foreign_args(fk, scalar_dtypes)],
            "config": {"kind": "foreign"}, "schedule": "foreign",
            "resources": {"vgpr": vgprs, "agpr": d.agpr_budget, "sgpr": d.sgpr_alloc,
                          "lds": int(d.group_segment_fixed_size) + int(fk.dynamic_lds),
                          "waves_per_simd": max(1, min(_MAX_WAVES_PER_SIMD,
                                                       _VGPRS_PER_LANE // max(vgprs, 1)))}}


def launch(fk: ForeignKernel, grid, values: Mapping[str, Any], *, seed: int = 0,
           trace: bool = False, scalar_dtypes: Mapping[str, str] | None = None):
    """Run the kernel over ``grid`` workgroups on the emulator; NumPy buffers in ``values`` are
    updated in place (an int value for a buffer is a raw device address, e.g. 0 for an unused
    pointer). Returns the ``Emulator`` (``.trace`` when ``trace``). Emulator failures raise
    ``ProfileError`` with the emulator's message (pc, instruction, register or address)."""
    from isa.emu import Emulator
    from isa.emu.errors import EmulatorError
    meta = contract(fk, scalar_dtypes)
    emu = Emulator(arch=meta["arch"], seed=seed, trace=trace)
    specs = foreign_args(fk, scalar_dtypes)
    missing = [a.name for a in specs if a.name not in values]
    if missing:
        raise KernargError(f"kernel {fk.kernel}: no value for arguments {missing}")
    packed = {}
    for a in specs:
        v = values[a.name]
        if a.kind == "buffer" and isinstance(v, np.ndarray):
            if not v.flags.c_contiguous:
                raise KernargError(f"buffer {a.name} must be C-contiguous (it is updated in place)")
            v = emu.alloc(v, a.name)
        packed[a.name] = v
    try:
        emu.launch(fk.hsaco, fk.kernel, grid=tuple(grid), block=fk.block,
                   kernargs=pack_kernargs(specs, packed), dynamic_lds=fk.dynamic_lds)
    except EmulatorError as exc:
        raise ProfileError(f"{fk.kernel} failed on the emulator: {exc}") from None
    return emu


def _model_run(fk, meta, params, values, seed, wgs_per_cu, hbm_fraction, loop, scalar_dtypes,
               latency=None):
    """Emulate one workgroup with ``values`` and model its co-resident copies on one CU;
    (streams, copies, SimResult, summary)."""
    from isa.cycle import streams_from_trace
    emu = launch(fk, (1, 1, 1), values, seed=seed, trace=True, scalar_dtypes=scalar_dtypes)
    streams = streams_from_trace(emu.trace)
    return (streams, *model_cu(meta, params, streams, wgs_per_cu, hbm_fraction, loop, latency))


def profile_foreign(fk: ForeignKernel, values: Mapping[str, Any] | Callable[[int], Mapping[str, Any]],
                    *, flops: float, n_wg: int, loop_iters: int, emulated_iters: int,
                    hbm_fraction: float = 0.0, device: str | None = None,
                    wgs_per_cu: int | None = None, clock_mhz: float | None = None, seed: int = 0,
                    loop: tuple[int, int] | None = None, keep_result: bool = False,
                    scalar_dtypes: Mapping[str, str] | None = None, slope_iters: int = 2,
                    tiles=None) -> dict:
    """Modeled performance of a foreign kernel, in ``asmgen profile --json``'s shape.

    ``values``: the arguments of the small problem one workgroup (grid 1x1x1) runs, whose main
    loop makes ``emulated_iters`` trips, or a function of the trip count returning them; the
    full problem has ``n_wg`` workgroups of ``loop_iters`` trips each and ``flops`` FLOPs.
    ``hbm_fraction`` is the share of loaded bytes that miss L2 (``ArchParams.vmem_latency``).
    ``tiles`` (``isa.cycle.problem.TileGrid``, its workgroups and trips those of the problem):
    the device's traffic replaces ``hbm_fraction`` and floors each trip, as for asmgen's GEMMs.

    Two per-trip costs are measured. ``cycles_per_iter`` is each wave's own loop-head to
    loop-head time in the steady state, what ``asmgen profile`` reports and extrapolates with.
    When ``values`` is a function, the run is repeated with ``slope_iters`` more trips and
    ``cycles_per_iter_cu`` = the growth of the whole CU run per added trip: the CU's marginal
    cost, which is larger when the co-resident copies do not overlap in time (a shared VMEM
    channel serving the oldest wave first staggers them). The whole problem is extrapolated with
    ``cycles_per_iter_cu`` when it was measured (``extrapolation`` says which)."""
    from isa.cycle.report import problem_tflops
    if emulated_iters < 1 or loop_iters < emulated_iters:
        raise ConfigError(f"loop_iters {loop_iters} must be >= emulated_iters {emulated_iters} >= 1")
    if n_wg < 1 or flops <= 0:
        raise ConfigError(f"n_wg {n_wg} must be >= 1 and flops {flops} > 0")
    if not 0.0 <= hbm_fraction <= 1.0:
        raise ConfigError(f"hbm_fraction {hbm_fraction} is outside 0..1")
    if slope_iters < 1:
        raise ConfigError(f"slope_iters {slope_iters} must be >= 1")
    meta = contract(fk, scalar_dtypes)
    params = arch_params(meta, device)
    traffic, latency = None, None
    if tiles is not None:
        if hbm_fraction:
            raise ConfigError(f"hbm_fraction {hbm_fraction} with tiles: the tile grid's traffic "
                              "gives the L2 / MALL / HBM mix, give one of them")
        if (tiles.n_wg, tiles.trips) != (n_wg, loop_iters):
            raise ConfigError(f"tiles {tiles.m}x{tiles.n}x{tiles.k} of {tiles.tile} make "
                              f"{tiles.n_wg} workgroups of {tiles.trips} trips, the problem has "
                              f"n_wg {n_wg} and loop_iters {loop_iters}")
        wgs_per_cu = wgs_per_cu or co_resident(meta, params)
        traffic, latency = grid_traffic(params, tiles, wgs_per_cu)
    args = (seed, wgs_per_cu, hbm_fraction, loop, scalar_dtypes, latency)
    first = values(emulated_iters) if callable(values) else values
    streams, copies, res, summ = _model_run(fk, meta, params, first, *args)
    cpi = summ["cycles_per_iter"]
    cpi_cu = None
    if callable(values):
        more = _model_run(fk, meta, params, values(emulated_iters + slope_iters), *args)
        cpi_cu = (more[2].cycles - res.cycles) / slope_iters
    step = cpi_cu if cpi_cu is not None else cpi
    extra = loop_iters - emulated_iters
    if extra and step is None:
        raise ProfileError(f"{fk.kernel}: no loop found in the emulated streams (need >= 2 trips "
                           f"to extrapolate {extra} more); emulate more iterations")
    clock = clock_mhz or params.clock_mhz
    trip, bound, per_round = floored_round(params, res, summ, step, traffic, extra, clock)
    perf = problem_tflops(params, flops, n_wg, per_round, copies, clock_mhz, streams=streams)
    return report(meta, params, res, summ, len(streams), {"loop_iters": emulated_iters},
                  keep_result,
                  schedule="foreign", kind="foreign",
                  cycles=perf["rounds"] * per_round, cycles_per_iter=cpi,
                  cycles_per_iter_cu=cpi_cu,
                  extrapolation="cycles_per_iter_cu" if cpi_cu is not None else "cycles_per_iter",
                  cycles_per_trip=trip, bound=bound, uncertainty=uncertainty(meta["arch"]),
                  cycles_per_round=per_round, mfma_busy=summ["mfma_busy"],
                  mfma_busy_per_simd=summ["mfma_busy_per_simd"], tflops=perf["tflops"],
                  stalls=summ["stalls"],
                  problem={"n_wg": n_wg, "flops": flops, "loop_iters": loop_iters},
                  wgs_per_cu=copies, hbm_fraction=hbm_fraction, perf=perf,
                  resources=meta["resources"])
