"""The hazard pass's rule views placed from a shape's template (asmgen.passes.hazard_place) equal
the views computed directly (hazards._rule_view_cached), for the allocated instructions of GEMM
schedules on both arches and of an attention kernel, and for copies of them renamed to other,
also overlapping, vector registers; a shape without a template falls back to the direct view."""
from __future__ import annotations

import dataclasses
import random

import pytest

from asmgen.passes import hazard_place
from asmgen.passes.hazards import _rule_view_cached
from asmgen.target import target_of
from isa.instr import Instr
from isa.operands import Reg


def _streams():
    from asmgen import api
    from asmgen.fuzz.cases import lower_case
    from asmgen.fuzz.strategies import FuzzCase
    from asmgen.kinds.gemm.config import GemmConfig
    out = []
    for arch, dtype in (("gfx942", "f16"), ("gfx950", "bf16")):
        cfg = GemmConfig(m=64, n=64, k=64, tile=(64, 64, 32), waves=(2, 2), arch=arch, dtype=dtype)
        for seed in (1, 2):
            low = lower_case(FuzzCase(cfg, seed, seed))
            out.append((arch, [it for it in low.items if isinstance(it, Instr)]))
    att = api.attention(arch="gfx942", batch=1, heads=1, seqlen_q=64, seqlen_k=64, head_dim=64,
                        dtype="f16", assemble=False)
    out.append(("gfx942", [it for it in att.compiled.items() if isinstance(it, Instr)]))
    return out


def _renamed(ins: Instr, rng: random.Random, pool: int) -> Instr:
    """Vector operands moved to registers drawn from a small pool (so they often overlap)."""
    ops = tuple(Reg(o.file, rng.randrange(0, pool), o.count)
                if isinstance(o, Reg) and o.file in ("v", "a") else o for o in ins.operands)
    return dataclasses.replace(ins, operands=ops)


@pytest.fixture(scope="module")
def corpus():
    return _streams()


def test_placed_views_equal_direct_views(corpus):
    hazard_place._TEMPLATES.clear()
    rng = random.Random(7)
    placed = checked = refused = 0
    for arch, instrs in corpus:
        target = target_of(arch)
        for ins in dict.fromkeys(instrs):
            for other in (ins, _renamed(ins, rng, 24), _renamed(ins, rng, 8)):
                try:
                    want = _rule_view_cached.__wrapped__(target, other)
                except Exception:  # noqa: BLE001  (a renaming the tables refuse, e.g. alignment)
                    refused += 1
                else:
                    assert hazard_place.placed_view(target, other, _rule_view_cached) == want, \
                        f"{ins} -> {other}"
                    checked += 1
        placed += sum(1 for k, t in hazard_place._TEMPLATES.items() if k[0] == arch and t)
    assert checked > 1000 and placed > 100 and refused < checked // 10, (checked, placed, refused)


def test_a_shape_without_vector_operands_takes_the_direct_view():
    from isa.asm_parse import parse_line
    target = target_of("gfx942")
    ins = parse_line("s_mul_i32 s4, s5, s6")
    seen = []

    def direct(t, i):
        seen.append(i)
        return _rule_view_cached(t, i)
    assert hazard_place.placed_view(target, ins, direct) == _rule_view_cached(target, ins)
    assert seen == [ins]
