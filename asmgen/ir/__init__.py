"""The kernel IR: tagged instruction nodes over virtual registers, in basic blocks of a CFG.

Modules: ``regs`` (``VReg``, ``IRError``), ``nodes`` (``Node``, ``Block``), ``kernel``
(``KernelIR``: registers, blocks in layout order, loops, builders), ``cfg`` (successors,
natural loops), ``stream`` (``Stream``: the scheduled blocks the passes rewrite).

How a template builds a kernel
------------------------------
::

    from isa.instr import Instr
    from isa.operands import Imm, Special, s, v
    from asmgen.ir import KernelIR
    from asmgen.target import target_of

    k = KernelIR(target_of("gfx942"), name="gemm_f16", tags=GEMM_TAGS)   # asmgen.kinds.gemm.tags
    kernarg = k.precolored("s", s(0, 2), "kernarg")     # s[0:1] kernarg pointer (code object v5)
    wg_x = k.precolored("s", s(2), "wg_x")               # workgroup id x (after the user SGPRs)
    tid = k.precolored("v", v(0), "tid")                 # v0: workitem id (flat / x)
    srd_a = k.vreg("s", 4, align=4, name="srd_a")       # a 128-bit buffer resource
    acc = k.vreg("a", 16, name="acc0")                   # 32x32 MFMA accumulator (AGPR file)
    ld = k.vreg("v", 4, name="a_frag")                   # 128-bit global load result

    p = k.prologue                                       # a Block
    p.add(Instr("s_load_dwordx4", (srd_a, kernarg, Imm(0))), tags={"addr"})
    counter = k.vreg("s", 1, name="k_iters")
    p.add(Instr("s_mov_b32", (counter, Imm(8))), tags={"addr"})

    body = k.make_loop(counter, label="loop_k")          # do-while: runs counter (>= 1) times
    body.add(Instr("buffer_load_dwordx4", (ld, tid, srd_a, Imm(0)), (("offen", True),)),
             tags={"gr_a"})
    body.add(Instr("ds_write_b128", (tid, ld)), tags={"lw_a"}, lds_write="A0")
    body.add(Instr("s_barrier"), tags={"barrier"})
    x = k.vreg("v", 4)
    body.add(Instr("ds_read_b128", (x, tid)), tags={"lr_a"}, lds_read="A0")
    body.add(Instr("v_mfma_f32_32x32x8_f16", (acc, x.sub(0, 2), x.sub(2, 2), acc)), tags={"mfma"})
    e = k.epilogue
    ...
    k.lds_bytes = 32768

Control flow (any CFG of blocks)
--------------------------------
A kernel is a list of ``Block``s in layout order: ``k.prologue`` first, ``k.epilogue`` last
(``s_endpgm`` is appended to it); ``k.block(name)`` makes a new one before the epilogue. A block
is ``nodes`` (scheduled) then ``term``, its unscheduled terminator; it falls through to the next
block unless its terminator ends with ``s_branch``. Loops, nests and branches::

    with k.do_loop(tiles, "loop_tile") as tile:     # do-while over the blocks made in the with
        tile.add(...)                            # per-tile setup (the header block)
        with k.do_loop(kiters, "loop_k") as kb:     # a nested loop: its own SGPR counter, set
            kb.add(...)                          # before it (in ``tile``) on every outer trip
        store = k.block("tile_store")            # after the inner loop, still in the outer one
        store.add(...)
    # an if inside a loop: the head ends with a compare and a branch to a cold block (placed
    # after the loop's latch, so the fall-through path does not jump), which jumps back
    with k.do_loop(trips, "loop_kv") as head:
        masked = k.block("masked", cold=True)
        k.branch(head, "s_cbranch_scc1", masked, Instr("s_cmp_ge_u32", (blk, diag)))
        plain = k.block("plain")                 # taken when SCC = 0
        latch = k.block("latch")                 # both paths meet here; the loop control
        k.jump(masked, latch)                    # goes at the end of the last non-cold block

``k.branch(frm, op, target, compare)`` ends ``frm`` with the compare and ``s_cbranch_scc0/scc1``
(``vccz/vccnz``, ``execz/execnz``); ``k.jump(frm, target)`` with ``s_branch``. Loop bounds are
SGPRs (``Loop.counter``, >= 1: the loop is a do-while; guard a possibly empty loop with a
branch around it). ``k.make_loop(counter, label)`` is the one-block loop (``with k.do_loop`` whose
header is the whole body). The passes (waitcnt, hazards, liveness, the verifier) are dataflow
fixpoints over whatever CFG the blocks form (``asmgen.ir.cfg``).

Rules a template must follow
  * Operands of an ``Instr`` are ``VReg`` (virtual, allocated later), ``isa.operands.Reg`` (a
    physical register, reserved for the whole kernel), ``Special``, ``Imm`` or ``Label``.
    A sub-range of a virtual tuple is ``vreg.sub(offset, count)``; it is a ``VReg`` too.
  * Registers of the kernel ABI (kernarg pointer, workgroup ids, v0 workitem ids) are made with
    ``precolored(file, Reg, name)``: a virtual register the allocator pins to that Reg.
  * Do NOT add ``s_waitcnt`` or hazard ``s_nop`` nodes: passes insert them from dataflow.
    ``s_barrier`` and ``s_setprio`` are ordinary nodes (tags ``barrier`` / ``setprio``).
    Branches are never ``Block.add``-ed: they are terminators (``branch``, ``jump``, loops).
  * Tag nodes for recipes with the tags of the kernel's kind: ``KernelIR(target, name,
    tags=VOCABULARY)`` (``asmgen.ir.tags``; the GEMM's ``asmgen.kinds.gemm.tags.GEMM_TAGS``:
    ``gr_a gr_b`` global reads, ``lw_a lw_b`` LDS writes, ``lr_a lr_b`` LDS reads, ``mfma``,
    ``store``, ...; every vocabulary has the core ``addr`` ``barrier`` and the pass-inserted
    ``wait`` ``nop``). ``Block.add`` refuses any other tag (``UnknownTag``, naming it and the
    kind); a declared tag may be passed as its member or its string. Parameterised tags are
    declared families (``TagFamily("stage", 4)[i]``).
  * LDS buffers are named regions: pass ``lds_write=`` (ds_write, LDS-DMA loads) and
    ``lds_read=`` (ds_read) with a region id (e.g. "A0", "B1"). Two LDS ops with different
    regions never alias; an LDS op with no region aliases everything. The waitcnt pass uses the
    regions to wait for LDS-DMA (vmcnt) only before ds_reads of the region the DMA writes.
    An LDS-DMA whose data other waves first read only after its ``publish_after``-th barrier
    (multi-buffering: a buffer filled d blocks ahead) passes ``publish_after=d``; the default 1
    makes the next ``s_barrier`` wait for it.
  * Program order in a block is the reference semantics: the DAG (``asmgen.dag``) keeps every
    register/memory/barrier dependence of that order, and any schedule the DAG allows is legal.
    Each block is scheduled on its own (the recipe's ``for_block(block.role)``); blocks inside a
    loop get loop-carried DAG edges.
  * The loop control (``s_sub_u32 c, c, 1``; ``s_cmp_lg_u32 c, 0``; ``s_cbranch_scc1 label``,
    ``Loop.control_instrs()``) ends the latch, so the template must not write the counter in the
    loop itself.
  * A *conditional* ``s_barrier`` (only some waves of the workgroup execute it, e.g. the 8-wave
    ping-pong offset of cdna-facts section 9.3) is ``k.add_conditional_barrier(where, compare)``:
    ``compare`` (an ``s_cmp_*`` setting SCC = "this wave takes the barrier") and
    ``s_cbranch_scc0 cond_barrier_skipN`` end the prologue (``where="prologue_end"``) or a block
    before the epilogue (``"epilogue_start"``); the barrier is a block of its own (tag
    ``cond_barrier``) followed by the label. It is an ordinary branch for the passes; the waits
    the barrier needs go before the branch (``Block.hoist_waits``), so they run on both paths.
    Hazards count a taken branch as one wait state (the conservative assumption of
    ``asmgen.passes.hazards``), so the skipping path provides 1, the other 2.
  * Node fields are what the passes read: the instruction, its tags, the LDS regions, the
    comment and ``publish_after``. Order is the scheduler's business: it orders by the recipe's
    ``priority(node)`` and ``SchedGroup`` tag masks, or without a recipe by the node's
    ``priority`` (set by a template, e.g. the GEMM's i32 epilogue) then critical-path height
    (``asmgen.sched.list_sched``). (The never-read ``stage`` and the never-set ``iteration`` and
    ``group`` fields were deleted; a template's pipeline stage is where it puts a node, and a
    parameterised tag, ``TagFamily``, can name it for a recipe.)
"""
from __future__ import annotations

from .cfg import block_successors, natural_loops, predecessors, reverse_postorder
from .kernel import COND_PLACES, KernelIR, Loop
from .nodes import COND_BRANCHES, JUMP, ROLES, Block, Node, branch_target
from .regs import FILES, AnyOperand, IRError, VReg
from .stream import SBlock, Stream
from .tags import CoreTag, FamilyTag, TagEnum, TagFamily, TagVocabulary, UnknownTag, is_declared

__all__ = ["COND_BRANCHES", "COND_PLACES", "FILES", "JUMP", "ROLES", "AnyOperand", "Block",
           "CoreTag", "FamilyTag", "IRError", "KernelIR", "Loop", "Node", "SBlock", "Stream",
           "TagEnum", "TagFamily", "TagVocabulary", "UnknownTag", "VReg", "block_successors",
           "branch_target", "is_declared", "natural_loops", "predecessors", "reverse_postorder"]
