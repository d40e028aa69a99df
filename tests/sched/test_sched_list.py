"""List scheduler: every order it produces is a topological order of the DAG; groups, priorities,
determinism and seeded tie-breaks."""
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from asmgen.dag import build_dag, is_valid_order
from asmgen.ir import CoreTag, KernelIR, TagEnum, TagVocabulary
from asmgen.kinds.common.tags import CommonTag
from asmgen.kinds.gemm.tags import GemmTag
from asmgen.sched.groups import SchedError, SchedGroup
from asmgen.sched.list_sched import schedule
from asmgen.target import target_of
from isa.instr import Instr
from isa.operands import Imm

OFFEN = (("offen", True),)
TAGS = ("mfma", "lr_a", "gr_a", "lw_a", "addr")


class ValuTag(TagEnum):
    VALU = "valu"


VOCAB = TagVocabulary("sched_test", CommonTag, GemmTag, ValuTag)


def random_block(rng: random.Random, n: int, loop: bool = False):
    """A random straight-line block over a small register pool (many dependences)."""
    k = KernelIR(target_of("gfx942"), "rand", tags=VOCAB)
    b = k.make_loop(k.vreg("s")) if loop else k.prologue
    vs = [k.vreg("v") for _ in range(6)]
    pairs = [k.vreg("v", 2) for _ in range(3)]
    accs = [k.vreg("a", 4) for _ in range(2)]
    srd = k.vreg("s", 4)
    for _ in range(n):
        c = rng.randrange(8)
        x, y = rng.choice(vs), rng.choice(vs)
        reg = rng.choice("AB")
        if c == 0:
            b.add(Instr("v_add_u32", (x, y, rng.choice(vs))), {"addr"})
        elif c == 1:
            b.add(Instr("ds_read_b32", (x, y)), {"lr_a"}, lds_read=reg)
        elif c == 2:
            b.add(Instr("ds_write_b32", (y, x)), {"lw_a"}, lds_write=reg)
        elif c == 3:
            b.add(Instr("buffer_load_dword", (x, y, srd, Imm(0)), OFFEN), {"gr_a"})
        elif c == 4:
            acc = rng.choice(accs)
            b.add(Instr("v_mfma_f32_16x16x16_f16", (acc, rng.choice(pairs), rng.choice(pairs), acc)),
                  {"mfma"})
        elif c == 5:
            b.add(Instr("s_barrier"), {"barrier"})
        elif c == 6:
            b.add(Instr("ds_read_b64", (rng.choice(pairs), y)), {"lr_a"}, lds_read=reg)
        else:
            b.add(Instr("buffer_store_dword", (x, y, srd, Imm(0)), OFFEN), {"store"})
    return k, b


class _Recipe:
    def __init__(self, rng: random.Random, groups, seed):
        self._p = {}
        self.rng = rng
        self.groups = groups
        self.repeat = bool(groups) and rng.random() < 0.5
        self.seed = seed

    def priority(self, node):
        return self._p.setdefault(node.id, self.rng.randrange(4))


@settings(max_examples=150, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 60), st.booleans(), st.booleans())
def test_any_schedule_is_a_topological_order(seed, n, loop, use_groups):
    rng = random.Random(seed)
    k, b = random_block(rng, n, loop)
    g = build_dag(b.nodes, k.target, loop=loop)
    present = sorted({t for nd in b.nodes for t in nd.tags})   # a recipe sees the tag counts
    groups = [SchedGroup({rng.choice(present)}, rng.randint(1, 3), rng.randint(0, 1))
              for _ in range(rng.randint(1, 4))] if use_groups and present else []
    recipe = _Recipe(rng, groups, rng.choice([None, seed]))
    order = schedule(b.nodes, g, recipe)
    assert is_valid_order(g, order)


def test_default_is_deterministic_and_critical_path_first():
    k = KernelIR(target_of("gfx942"), "t", tags=VOCAB)
    b = k.prologue
    srd, addr = k.vreg("s", 4), k.vreg("v")
    x, y = k.vreg("v"), k.vreg("v")
    m = b.add(Instr("v_mov_b32", (y, Imm(1))))
    ld = b.add(Instr("buffer_load_dword", (x, addr, srd, Imm(0)), OFFEN))
    use = b.add(Instr("v_add_u32", (k.vreg("v"), x, y)))
    g = build_dag(b.nodes, k.target)
    order = schedule(b.nodes, g)
    assert order[0] is ld          # the long-latency load heads the critical path
    assert order == schedule(b.nodes, g) and order[-1] is use and m in order


def test_groups_interleave_mfma_and_lds_reads():
    k = KernelIR(target_of("gfx942"), "t", tags=VOCAB)
    b = k.prologue
    addr = k.vreg("v")
    for i in range(4):
        acc = k.vreg("a", 4)
        b.add(Instr("v_mfma_f32_16x16x16_f16", (acc, k.vreg("v", 2), k.vreg("v", 2), acc)), {"mfma"})
    for i in range(8):
        b.add(Instr("ds_read_b32", (k.vreg("v"), addr)), {"lr_a"}, lds_read="A")
    g = build_dag(b.nodes, k.target)

    class R:
        groups = (SchedGroup(CommonTag.MFMA, 1), SchedGroup({GemmTag.LR_A, GemmTag.LR_B}, 2))
        repeat = True

    order = schedule(b.nodes, g, R())
    kinds = "".join("m" if "mfma" in n.tags else "r" for n in order)
    assert kinds == "mrr" * 4


def test_group_matching_no_node_is_an_error_naming_it():
    k = KernelIR(target_of("gfx942"), "t", tags=VOCAB)
    b = k.prologue
    x = k.vreg("v")
    b.add(Instr("v_mov_b32", (x, Imm(1))), {"addr"})
    b.add(Instr("v_add_u32", (x, x, x)), {"addr"})

    class R:
        groups = (SchedGroup(CoreTag.ADDR, 1), SchedGroup(CommonTag.MFMA, 1, sync_id=3))

    with pytest.raises(SchedError, match=r"SchedGroup\(\['mfma'\], count=1, sync_id=3\) "
                                         r"matches no node of the block"):
        schedule(b.nodes, build_dag(b.nodes, k.target), R())


def test_group_closed_when_its_nodes_are_not_ready_yet():
    """A group whose nodes exist but wait for others is closed early, not a deadlock."""
    k = KernelIR(target_of("gfx942"), "t", tags=VOCAB)
    b = k.prologue
    x = k.vreg("v")
    b.add(Instr("v_mov_b32", (x, Imm(1))), {"addr"})
    b.add(Instr("v_add_u32", (x, x, x)), {"valu"})

    class R:
        groups = (SchedGroup(ValuTag.VALU, 1), SchedGroup(CoreTag.ADDR, 1))
        repeat = True

    order = schedule(b.nodes, build_dag(b.nodes, k.target), R())
    assert [n.instr.op for n in order] == ["v_mov_b32", "v_add_u32"]


def test_group_without_wait_closes_as_soon_as_no_node_is_ready():
    """After m1 the LR_A group is current but its read waits for an ungrouped add: a waiting
    group (the default) lets the add and then the read in before m2; ``wait=False`` closes at
    once, so m2 (first in program order) goes next."""
    def order(wait: bool) -> list[str]:
        k = KernelIR(target_of("gfx942"), "t", tags=VOCAB)
        b = k.prologue
        x, y = k.vreg("v"), k.vreg("v")
        for _ in range(2):
            acc = k.vreg("a", 4)
            b.add(Instr("v_mfma_f32_16x16x16_f16", (acc, k.vreg("v", 2), k.vreg("v", 2), acc)),
                  {"mfma"})
        b.add(Instr("v_add_u32", (x, y, y)), {"valu"})
        b.add(Instr("ds_read_b32", (k.vreg("v"), x)), {"lr_a"}, lds_read="A")

        class R:
            groups = (SchedGroup(CommonTag.MFMA, 1), SchedGroup(GemmTag.LR_A, 1, wait=wait),
                      SchedGroup(CommonTag.MFMA, 1), SchedGroup(GemmTag.LR_A, 1, wait=wait))

            def priority(self, n):
                return -n.id

        return [n.instr.op[:6] for n in schedule(b.nodes, build_dag(b.nodes, k.target), R())]

    assert order(True) == ["v_mfma", "v_add_", "ds_rea", "v_mfma"]
    assert order(False) == ["v_mfma", "v_mfma", "v_add_", "ds_rea"]


def test_seeded_tie_break_varies_but_repeats():
    k = KernelIR(target_of("gfx942"), "t", tags=VOCAB)
    b = k.prologue
    for i in range(12):
        b.add(Instr("v_mov_b32", (k.vreg("v"), Imm(i))))
    g = build_dag(b.nodes, k.target)

    class R:
        def __init__(self, seed):
            self.seed = seed

        def priority(self, node):
            return 0

    a1 = [n.id for n in schedule(b.nodes, g, R(1))]
    assert a1 == [n.id for n in schedule(b.nodes, g, R(1))]
    assert any([n.id for n in schedule(b.nodes, g, R(s))] != a1 for s in range(2, 6))
    assert [n.id for n in schedule(b.nodes, g, R(None))] == sorted(a1)


def test_recipe_leaves_out_groups_its_block_has_no_nodes_for():
    """A recipe receives the block's tag counts: its groups matching none of them are dropped,
    the others kept in order (schedules.common.restrict_groups)."""
    from collections import Counter

    from schedules import get_recipe
    r = get_recipe("pgr2")
    full = r.for_block("loop").groups
    kept = r.for_block("loop", Counter({"mfma": 4, "lr_a": 2})).groups
    assert kept == tuple(g for g in full if g.mask & {"mfma", "lr_a"})
    assert any(g.mask == {"setprio_hi"} for g in full) and not any("setprio_hi" in g.mask
                                                                     for g in kept)


def test_default_order_takes_the_node_priority_before_the_critical_path():
    """Without a recipe, a template's ``priority`` orders ready nodes first (the GEMM's i32
    epilogue gives its elements falling priorities); equal priorities fall back to height."""
    k = KernelIR(target_of("gfx942"), "t", tags=VOCAB)
    b = k.prologue
    srd, addr = k.vreg("s", 4), k.vreg("v")
    x = k.vreg("v")
    m = b.add(Instr("v_mov_b32", (k.vreg("v"), Imm(1))), priority=1)
    ld = b.add(Instr("buffer_load_dword", (x, addr, srd, Imm(0)), OFFEN))
    use = b.add(Instr("v_add_u32", (k.vreg("v"), x, x)))
    order = schedule(b.nodes, build_dag(b.nodes, k.target))
    assert order == [m, ld, use]          # the load would head the critical path otherwise
    for n in b.nodes:
        n.priority = 0
    assert schedule(b.nodes, build_dag(b.nodes, k.target))[0] is ld
