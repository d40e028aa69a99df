"""isa.emu.program's decode caches give what decoding each instruction afresh gives: the register
read/write templates shared per (spec, shape) equal isa.access's sets for instructions renamed to
other (also overlapping) vector registers, and an Entry filled from the per-instruction cache has
the fields of a fresh decode. Over the corpus of tests/emu/test_hazard_classes.py (GEMM schedules
on both arches, fp8, attention)."""
from __future__ import annotations

import random

import pytest
from test_hazard_classes import _instrs, _kernels, _renamed

from isa.access import accesses
from isa.emu import program as prog
from isa.emu.program import Program
from isa.tables import spec_for


@pytest.fixture(scope="module")
def corpus():
    return [_instrs(k) for k in _kernels()]


def _direct(spec, ins):
    reads, writes = accesses(spec, ins)
    return prog._keys(reads), prog._keys(writes)


def test_rw_templates_equal_isa_access_for_renamed_registers(corpus):
    prog._RW_SHAPES.clear()
    rng = random.Random(11)
    checked = 0
    for arch, instrs in corpus:
        for ins in dict.fromkeys(instrs):
            spec = spec_for(arch, ins)
            assert prog._spec_rw(spec, ins) == _direct(spec, ins), str(ins)
            for _ in range(4):
                other = _renamed(ins, rng)
                # the template made from ``ins`` places ``other``'s registers
                assert prog._spec_rw(spec, other) == _direct(spec, other), f"{ins} -> {other}"
            checked += 1
    assert checked > 300 and prog._RW_SHAPES


def test_overlapping_operands_take_the_read_slot():
    """``v_add_u32 v3, v8, v3`` reads v3 through src1, not through the destination slot: the
    template made from it must give ``v_add_u32 v5, v8, v3`` the reads v3, v8."""
    from isa.asm_parse import parse_line
    prog._RW_SHAPES.clear()
    a, b = parse_line("v_add_u32_e32 v3, v8, v3"), parse_line("v_add_u32_e32 v5, v8, v3")
    sa, sb = spec_for("gfx942", a), spec_for("gfx942", b)
    assert prog._spec_rw(sa, a) == ([1003, 1008], [1003])
    assert prog._spec_rw(sb, b) == ([1003, 1008], [1005])


def test_cached_entries_equal_fresh_decodes(corpus):
    rng = random.Random(2)
    for arch, instrs in corpus[:3]:
        mixed = instrs + [_renamed(i, rng) for i in instrs[:80]]
        prog._DECODED.clear()
        prog._RW_SHAPES.clear()
        fresh = Program(mixed, {}, arch).entries
        again = Program(mixed, {}, arch).entries          # every entry from the caches
        for e, f in zip(again, fresh):
            for name in prog._CACHED:
                assert getattr(e, name) == getattr(f, name), (name, str(e.instr))
            assert (e.pc, e.hz_need, e.gfn, e.group_seen) == (f.pc, {}, None, 0)
            assert e.hz_need is not f.hz_need          # per-program state stays per program
