"""Latency and resource model for the scheduler, read from the ISA spec table (pipe, cycles, passes)
and the one sourced latency table, ``isa.cycle.params`` (through ``asmgen.target.Target``).

Latencies are cycles from a producer's issue until a dependent instruction can issue without
stalling. Memory latencies are the cycle model's load-to-use figures (cdna-timing.md section 1,
MT4G: s_load L1 hit 48 clk, ds_read 52 clk, L2 hit 288 clk); the scheduler uses the L2-hit figure
for VMEM, which is what a prefetching GEMM sees in steady state. MFMA results are ready after the
MFMA's passes x 4 cycles (cdna-timing.md section 3, "MFMA cycles"); other VALU ops take the
spec's issue cycles (4 for wave64, 16 for transcendentals). This module holds no number of its
own.
"""
from __future__ import annotations

from ..ir import Node
from ..passes.effects import effects
from ..target import Target


def issue_cycles(target: Target, node: Node) -> int:
    """Cycles the instruction occupies its pipe (MFMA: passes x 4; others: spec cycles)."""
    spec = effects(target, node.instr).spec
    p = target.spec_passes(spec)
    return p * target.latency.mfma_clk_per_pass if p else spec.cycles


def pipe(target: Target, node: Node) -> str:
    return effects(target, node.instr).spec.pipe


def result_latency(target: Target, node: Node) -> int:
    """Cycles from issue until the instruction's register results can be consumed."""
    return result_latency_of(target, effects(target, node.instr))


def result_latency_of(target: Target, e) -> int:
    """``result_latency`` from the instruction's ``asmgen.passes.effects.Effects``."""
    lat = target.latency
    if e.counter == "vm":
        return lat.vmem
    if e.counter == "lgkm":
        return lat.smem if e.smem else lat.lds
    p = target.spec_passes(e.spec)
    return p * lat.mfma_clk_per_pass if p else e.spec.cycles


def kind_latency(kind: str, producer_result_latency: int) -> int:
    """Latency of a DAG edge of ``kind`` whose producer's results take the given cycles."""
    if kind == "raw":
        return producer_result_latency
    if kind == "barrier":
        return 1
    return 0


def edge_latency(target: Target, u: Node, v: Node, kind: str) -> int:
    """Latency of a DAG edge u -> v of ``kind`` (see ``asmgen.dag``)."""
    return kind_latency(kind, result_latency(target, u) if kind == "raw" else 0)
