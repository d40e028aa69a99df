"""Scalar ALU instructions for a group of waves at one pc (isa.emu.group): the per-wave semantics
of isa.emu.salu, run for every member in one call.

A scalar instruction has one value per wave, so a group form is the per-wave function applied to
each member's operands: the same Python function on the same integers (``salu``'s tables), so the
bits are those of the members stepping one after the other (SALU ops touch only their own wave's
SGPRs, SCC, EXEC and M0; tests/emu/test_group_salu.py runs every SALU mnemonic both ways). What the
group form saves is the per-wave dispatch: SGPR sources are read for all members as one column of
the stacked SGPR file (``g.S[g.sel, i]``), destinations written as one column, and the step's
bookkeeping runs once (isa.emu.pool ``_group_step``). Operands with a per-wave home outside the
SGPR file (EXEC, M0, SCC, apertures) are read and written member by member through the per-wave
accessors of isa.emu.operand_io.

Values are lists in the group's slot order (``g.ordered``, the order of ``g.sel``'s rows).
"""
from __future__ import annotations

from collections.abc import Callable
from itertools import repeat

import numpy as np

from ..operands import Imm
from .operand_io import (
    _MODE,
    M32,
    AluOperandError,
    _sgpr_index,
    imm_for_type,
    scalar_getter,
    scalar_setter,
)
from .state import N_SGPR_SLOTS

_SLOTS = N_SGPR_SLOTS      # a move past the file's end steps per wave (which reports it)
_U64 = np.uint64
_S32 = np.uint64(32)


def _per_wave(factory, *args):
    """``factory(*args)`` bound for one wave (the group mode off while it binds)."""
    old = _MODE.group
    _MODE.group = False
    try:
        return factory(*args)
    finally:
        _MODE.group = old


def column_getter(op, width: int = 1, typ: str | None = None) -> Callable:
    """``g -> iterable of int``: ``op`` read as ``scalar_getter`` reads it, for every member (an
    SGPR or SGPR pair as one column of the stacked file; a constant repeated)."""
    if typ is None:
        typ = "b64" if width == 2 else "b32"
    if isinstance(op, Imm):
        bits = imm_for_type(op, typ)
        return lambda g: repeat(bits)
    idx = _sgpr_index(op)
    if idx is not None:
        if width == 1:
            return lambda g: g.S[g.sel, idx].tolist()
        if width == 2:
            hi = idx + 1

            def get2(g):
                s = g.S[g.sel]
                return (s[:, idx].astype(_U64) | (s[:, hi].astype(_U64) << _S32)).tolist()
            return get2
        raise AluOperandError(f"scalar read of {op} with width {width}: only 1 or 2 dwords")
    get = _per_wave(scalar_getter, op, width, typ)
    return lambda g: [get(w) for w in g.ordered]


def column_setter(op, width: int = 1) -> Callable:
    """``(g, values)``: ``op`` written as ``scalar_setter`` writes it, for every member (``values``
    one int per member in slot order)."""
    idx = _sgpr_index(op)
    if idx is not None:
        if width == 1:
            def set1(g, vals):
                g.S[g.sel, idx] = [v & M32 for v in vals]
            return set1
        if width == 2:
            hi = idx + 1

            def set2(g, vals):
                g.S[g.sel, idx] = [v & M32 for v in vals]
                g.S[g.sel, hi] = [(v >> 32) & M32 for v in vals]
            return set2
        raise AluOperandError(f"scalar write of {op} with width {width}: only 1 or 2 dwords")
    put = _per_wave(scalar_setter, op, width)

    def set_each(g, vals):
        for w, v in zip(g.ordered, vals):
            put(w, v)
    return set_each


def mov(d, s0, width: int) -> Callable | None:
    """s_mov_b32 / s_mov_b64 from an SGPR (pair) or a constant to an SGPR (pair): one column copy
    of the stacked SGPR file (the per-wave move copies the same bits); None for other operands."""
    di = _sgpr_index(d)
    if di is None:
        return None
    dj = di + width
    si = _sgpr_index(s0)
    if si is not None:
        sj = si + width

        def copy(m, g):
            g.S[g.sel, di:dj] = g.S[g.sel, si:sj]
        return copy if dj <= _SLOTS and sj <= _SLOTS else None
    if isinstance(s0, Imm):
        bits = imm_for_type(s0, "b64" if width == 2 else "b32")
        row = np.array([bits & M32, bits >> 32][:width], np.uint32)

        def const(m, g):
            g.S[g.sel, di:dj] = row
        return const if dj <= _SLOTS else None
    return None


def scc_of(g) -> list:
    return [w.scc for w in g.ordered]


def set_scc(g, sccs) -> None:
    for w, c in zip(g.ordered, sccs):
        w.scc = c


def set_scc_some(g, sccs) -> None:
    """SCC of the members whose result gave one (``None``: SCC unchanged, as per wave)."""
    for w, c in zip(g.ordered, sccs):
        if c is not None:
            w.scc = c


# Below this many members the column form's fixed cost (the NumPy reads and writes of the columns)
# outweighs what it saves: the per-wave function runs for each member instead (the same bits).
COLUMN_MIN = 8


def either(column: Callable, run: Callable) -> Callable:
    """The column form ``column(m, g)`` for a group of ``COLUMN_MIN`` members or more, else the
    per-wave ``run(m, w)`` for each member."""
    def run_group(m, g):
        if g.n >= COLUMN_MIN:
            return column(m, g)
        for w in g.ordered:
            run(m, w)
    return run_group


def sop2(fn, g0, g1, put, reads_scc: bool = True) -> Callable:
    """Group form of a SOP2 op ``fn(s0, s1, scc) -> (d, scc | None)`` (``reads_scc`` False: ``fn``
    ignores its SCC argument, which is then not gathered)."""
    def run(m, g):
        res, sccs = zip(*[fn(a, b, c) for a, b, c in
                          zip(g0(g), g1(g), scc_of(g) if reads_scc else repeat(0))])
        put(g, res)
        set_scc_some(g, sccs)
    return run


def sop1(fn, g0, gd, put) -> Callable:
    """Group form of a SOP1 op ``fn(s0, scc, old_d) -> (d, scc | None)``."""
    def run(m, g):
        res, sccs = zip(*[fn(a, c, d) for a, c, d in zip(g0(g), scc_of(g), gd(g))])
        put(g, res)
        set_scc_some(g, sccs)
    return run


def sopc(fn, g0, g1) -> Callable:
    """Group form of a compare ``fn(s0, s1) -> bool`` (SCC only)."""
    def run(m, g):
        set_scc(g, [int(bool(fn(a, b))) for a, b in zip(g0(g), g1(g))])
    return run


def each(run) -> Callable:
    """Group form of a per-wave ``run(m, w)`` that touches only its own wave's scalar state: run
    for every member (any order gives the same state)."""
    def run_each(m, g):
        for w in g.ordered:
            run(m, w)
    return run_each


def also_for_groups(bind):
    """A per-wave binder that binds for a group too: its per-wave function run for each member."""
    def bind_either(ins):
        if _MODE.group:
            return each(_per_wave(bind, ins))
        return bind(ins)
    bind_either.__name__ = bind_either.__qualname__ = getattr(bind, "__name__", "bind")
    bind_either.__module__ = getattr(bind, "__module__", __name__)
    return bind_either
