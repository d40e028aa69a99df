"""Cycle-approximate model of one CU (issue model, MFMA/VALU/LDS/VMEM/SMEM pipes, s_waitcnt,
s_barrier) fed by per-wave dynamic instruction streams, plus its reports.

``simulate(arch, streams)`` runs the model (``isa.cycle.model``); ``streams_from_trace`` turns
the emulator's trace records into ``WaveStream``s; ``isa.cycle.report`` summarises a result
(cycles per loop iteration, MFMA busy, stalls, modeled TFLOP/s, Perfetto trace, SVG timeline);
``isa.cycle.params`` holds the timing parameters with their sources.

Names are imported on first use (PEP 562 ``__getattr__``), so ``isa.cycle.params`` (asked for by
``asmgen.target`` on every generation) does not load the model, the hazard rules and the
instruction formatter with it.
"""
from __future__ import annotations

from importlib import import_module

_WHERE = {"STALL_REASONS": "model", "CuModel": "model", "CycleModelError": "model",
          "SimResult": "model", "WaveStream": "model", "simulate": "model",
          "ArchParams": "params", "CycleParamError": "params", "params_for": "params",
          "streams_from_asm": "streams", "streams_from_trace": "streams"}

__all__ = sorted(_WHERE)


def __getattr__(name: str):
    where = _WHERE.get(name)
    if where is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(import_module(f"{__name__}.{where}"), name)
    globals()[name] = value
    return value
