"""Cycle-approximate model of one CU (issue model, MFMA/VALU/LDS/VMEM/SMEM pipes, s_waitcnt,
s_barrier) fed by per-wave dynamic instruction streams, plus its reports.

``simulate(arch, streams)`` runs the model (``isa.cycle.model``); ``streams_from_trace`` turns
the emulator's trace records into ``WaveStream``s; ``isa.cycle.report`` summarises a result
(cycles per loop iteration, MFMA busy, stalls, modeled TFLOP/s, Perfetto trace, SVG timeline);
``isa.cycle.params`` holds the timing parameters with their sources.
"""
from .model import STALL_REASONS, CuModel, CycleModelError, SimResult, WaveStream, simulate
from .params import ArchParams, CycleParamError, params_for
from .streams import streams_from_asm, streams_from_trace

__all__ = ["STALL_REASONS", "ArchParams", "CuModel", "CycleModelError", "CycleParamError",
           "SimResult", "WaveStream", "params_for", "simulate", "streams_from_asm",
           "streams_from_trace"]
