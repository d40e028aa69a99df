"""The ordered pass pipeline from a KernelIR to a verified stream on physical registers.

    schedule (per block: DAG + list scheduler) -> lower to a Stream (terminators, s_endpgm)
      -> waitcnt insertion -> register allocation -> hazard s_nops -> verify

The hazard pass runs after allocation because its rules compare physical register ranges (two
virtual registers sharing a physical one can create a hazard); waitcnt runs before allocation so
that liveness can keep in-flight load destinations reserved until their wait. ``dump(stage,
program)`` is called after every stage (for examples/dump_pipeline.py and debugging).

Recipes: ``recipe`` is passed to the list scheduler for every block, or, when it has a
``for_block(role)`` method (the block's role: "prologue" | "loop" | "epilogue"), the object
that returns. Each block is scheduled on its own; its terminator stays after it, unscheduled.
A per-block recipe naming a tag the kernel's kind does not declare is a SchedError naming it
(``asmgen.sched.groups.check_recipe_tags``).
"""
from __future__ import annotations

import gc
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass

from isa.instr import Instr

from ..dag import block_dag
from ..ir import Block, CoreTag, KernelIR, SBlock, Stream
from ..sched.groups import SchedError, check_recipe_tags
from ..sched.list_sched import schedule
from .hazards import insert_nops
from .regalloc import Allocation, allocate
from .verify import verify
from .waitcnt import insert_waitcnts

Dump = Callable[[str, Stream], None]


@dataclass
class Compiled:
    stream: Stream
    allocation: Allocation

    def items(self):
        """Instructions and the loop label, in order, for ``asmgen.emit``."""
        return self.stream.items()


def _recipe_for(recipe, role: str, tags: Counter):
    """The per-block recipe: ``recipe.for_block(role, tags)`` (``tags``: the block's tag counts,
    so the recipe leaves out the groups its block has no nodes for) when it has that method."""
    if recipe is not None and hasattr(recipe, "for_block"):
        return recipe.for_block(role, tags)
    return recipe


def tag_counts(block: Block) -> Counter:
    """How many nodes of ``block`` carry each tag."""
    return Counter(t for n in block.nodes for t in n.tags)


def schedule_block(block: Block, recipe=None, *, loop: bool | None = None):
    """The block's nodes in scheduled order (a block inside a loop gets loop-carried edges)."""
    if not block.nodes:
        return []
    loop = block.in_loop if loop is None else loop
    g = block_dag(block.nodes, block.kernel.target, loop=loop)
    try:
        br = _recipe_for(recipe, block.role, tag_counts(block))
        check_recipe_tags(br, block.kernel.tags)
        return schedule(block.nodes, g, br)
    except SchedError as exc:
        name = getattr(recipe, "name", type(recipe).__name__)
        raise SchedError(f"recipe {name}, block {block.name}: {exc}") from None


def lower(kernel: KernelIR, recipe=None) -> Stream:
    """Schedule every block and assemble the Stream: each block's scheduled nodes, then its
    unscheduled terminator (compare/branch, loop control); ``s_endpgm`` ends the epilogue."""
    blocks = []
    for b in kernel.blocks():
        nodes = schedule_block(b, recipe) + [kernel.new_node(i, tags) for i, tags in b.term]
        if b is kernel.epilogue:
            nodes.append(kernel.new_node(Instr("s_endpgm"), {CoreTag.END}))
        blocks.append(SBlock(b.name, nodes, b.role, b.label, b.hoist_waits))
    prog = Stream.of_blocks(kernel, blocks)
    prog.cfg()      # raises IRError on a branch to an undefined label / a fall-through past the end
    return prog


def compile_kernel(kernel: KernelIR, recipe=None, *, limits: dict[str, int] | None = None,
                   dump: Dump | None = None, hazard_rule=None,
                   acc_to_agpr: bool = False) -> Compiled:
    """Run the whole pipeline; raises RegisterBudgetError, VerifyError, SchedError, ...
    ``acc_to_agpr``: place VGPR-declared MFMA accumulators in AGPRs (``regalloc.allocate``)."""
    # The passes allocate many short-lived, acyclic objects (freed by reference counting); the
    # cyclic collector's pauses cost ~10-20% of a large kernel's compile time, so it is paused
    # here and restored (a collection is not skipped, only deferred to after the pipeline).
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        return _compile(kernel, recipe, limits, dump, hazard_rule, acc_to_agpr)
    finally:
        if was_enabled:
            gc.enable()


def _compile(kernel, recipe, limits, dump, hazard_rule, acc_to_agpr) -> Compiled:
    def stage(name: str, prog: Stream) -> None:
        if dump is not None:
            dump(name, prog)

    prog = lower(kernel, recipe)
    stage("schedule", prog)
    insert_waitcnts(prog)
    stage("waitcnt", prog)
    alloc = allocate(prog, limits, acc_to_agpr=acc_to_agpr)
    stage("regalloc", prog)
    insert_nops(prog, hazard_rule)
    stage("hazards", prog)
    verify(prog, hazard_rule)
    stage("verify", prog)
    return Compiled(prog, alloc)
