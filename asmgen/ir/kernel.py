"""The kernel as a control-flow graph: ``KernelIR`` holds registers and basic blocks in layout
order, ``Loop`` a counted do-while loop over some of them; builder helpers make the common shapes.

Layout: the prologue block first, the epilogue block last (``s_endpgm`` is appended to it by the
pass manager); new blocks go before the epilogue in creation order. Successors follow from the
blocks' terminators (``asmgen.ir.cfg``): fall-through, conditional branches (``s_cbranch_scc0/1``,
``vccz/vccnz``, ``execz/execnz``) and ``s_branch``.
"""
from __future__ import annotations

from collections.abc import Iterable, Iterator
from contextlib import contextmanager

from isa.instr import Instr
from isa.operands import REG_FILE_SIZE, Imm, Label, Reg

from ..target import Target
from .cfg import block_successors
from .nodes import COND_BRANCHES, Block, Node, check_operand_types
from .regs import IRError, VReg
from .tags import CoreTag, TagVocabulary

COND_PLACES = ("prologue_end", "epilogue_start")


class Loop:
    """A do-while loop: ``header`` (label ``label``) .. ``latch``; ``counter`` is an SGPR (VReg or
    Reg) holding the trip count (>= 1), decremented by the control appended to the latch's
    terminator (``control_instrs``). ``blocks``: every block of the loop (nested loops included);
    ``parent``: the enclosing loop or None."""

    def __init__(self, kernel: KernelIR, counter: VReg | Reg, label: str,
                 parent: Loop | None = None) -> None:
        if counter.file != "s" or counter.count != 1:
            raise IRError(f"loop counter {counter} must be a single SGPR")
        self.kernel = kernel
        self.counter = counter
        self.label = label
        self.parent = parent
        self.blocks: list[Block] = []
        self.cold: list[Block] = []
        self.header: Block | None = None
        self.latch: Block | None = None

    @property
    def body(self) -> Block:
        """The header block (for a one-block loop made by ``make_loop``, the whole body)."""
        assert self.header is not None
        return self.header

    def control_instrs(self) -> list[Instr]:
        """The back-edge appended after the scheduled latch (SOP2/SOPC/SOPP)."""
        c = self.counter
        return [Instr("s_sub_u32", (c, c, Imm(1))), Instr("s_cmp_lg_u32", (c, Imm(0))),
                Instr("s_cbranch_scc1", (Label(self.label),))]


class KernelIR:
    """A kernel for one ``Target`` (``target``: what every pass asks for instruction tables,
    latencies and hazard rules): basic blocks (``prologue`` first, ``epilogue`` last), loops,
    registers, LDS size; ``tags`` is the vocabulary of the kind being built (``asmgen.ir.tags``):
    every node's tags are checked against it."""

    def __init__(self, target: Target, name: str = "kernel", *, tags: TagVocabulary) -> None:
        if not isinstance(target, Target):
            raise IRError(f"KernelIR needs a Target (asmgen.target.target_of(name)), got {target!r}")
        if not isinstance(tags, TagVocabulary):
            raise IRError(f"kernel {name}: tags={tags!r} is not a TagVocabulary "
                          f"(asmgen.ir.tags: the kind's declared tags)")
        self.tags = tags
        self.target = target
        self.name = name
        self.lds_bytes = 0
        # waitcnt pass: VMEM results a loop reads are waited for before the loop, not inside it
        # (``asmgen.passes.waitcnt``; set by templates whose loop-invariant operands, e.g. the
        # attention ping-pong's Q, arrive just before the loop)
        self.wait_vm_before_loops = False
        self._roots: dict[int, VReg] = {}
        self.precolors: dict[int, Reg] = {}   # vreg root id -> physical register
        self._next_node = 0
        self._names: set[str] = set()
        self._labels: set[str] = set()
        self.loops: list[Loop] = []
        self._open: list[Loop] = []
        self._skips = 0
        self.prologue = self._new("prologue", "prologue")
        self.epilogue = self._new("epilogue", "epilogue")
        # layout = prologue chain (prologue + conditional-barrier blocks at its end), middle
        # blocks (loops ...), blocks at the epilogue's start, epilogue
        self._pro: list[Block] = [self.prologue]
        self._mid: list[Block] = []
        self._epi_head: list[Block] = []

    # registers
    def vreg(self, file: str, count: int = 1, align: int | None = None, name: str = "") -> VReg:
        """A fresh virtual register tuple. Default alignment: 2 for 64-bit+ tuples (gfx90a+ rule
        for VGPR/AGPR/SGPR pairs, cdna-facts section 1), 4 for SGPR quads (buffer resources)."""
        if align is None:
            align = 1 if count == 1 else (4 if file == "s" and count >= 4 else 2)
        if count > REG_FILE_SIZE[file]:
            raise IRError(f"virtual register of {count} {file}-registers exceeds the file size "
                          f"{REG_FILE_SIZE[file]}")
        r = VReg(file, len(self._roots), count, align, 0, name)
        self._roots[r.id] = r
        return r

    def precolored(self, file: str, reg: Reg, name: str = "") -> VReg:
        """A virtual register the allocator pins to physical ``reg`` (kernel ABI inputs)."""
        if reg.file != file:
            raise IRError(f"precoloured {name or file}: file {file!r} does not match {reg}")
        r = self.vreg(file, reg.count, 1, name)
        self.precolors[r.id] = reg
        return r

    def vreg_root(self, vid: int) -> VReg:
        return self._roots[vid]

    @property
    def vregs(self) -> list[VReg]:
        return list(self._roots.values())

    def check_vreg(self, r: VReg) -> None:
        root = self._roots.get(r.id)
        if root is None or root.file != r.file or r.offset + r.count > root.count:
            raise IRError(f"{r} is not a (sub-range of a) virtual register of kernel {self.name}")

    def check_operands(self, instr: Instr) -> None:
        for o in check_operand_types(instr):
            self.check_vreg(o)

    # blocks
    def _new(self, name: str, role: str, label: str | None = None) -> Block:
        base, i = name, 1
        while name in self._names:
            i += 1
            name = f"{base}{i}"
        if label is not None:
            if label in self._labels:
                raise IRError(f"label {label!r} is defined twice in kernel {self.name}")
            self._labels.add(label)
        self._names.add(name)
        return Block(self, name, role, label)

    def block(self, name: str, *, role: str | None = None, label: str | None = None,
              cold: bool = False) -> Block:
        """A new block, placed before the epilogue in creation order. Inside ``with do_loop(...)``
        it belongs to that loop (role "loop"); ``cold=True`` places it after the loop's latch
        (reached only by a branch: the loop's fall-through path skips it)."""
        if role is None:
            role = "loop" if self._open else ("epilogue" if self.loops else "prologue")
        b = self._new(name, role, label)
        if self._open:
            b.loop = self._open[-1]
            for lp in self._open:
                lp.blocks.append(b)
        if cold:
            if not self._open:
                raise IRError(f"cold block {name}: only a block inside a loop can be cold")
            self._open[-1].cold.append(b)
        else:
            self._mid.append(b)
        return b

    def label_of(self, b: Block) -> str:
        """``b``'s label (one is made from its name if it has none yet)."""
        if b.label is None:
            lab = b.name if b.name not in self._labels else f"{b.name}_{len(self._labels)}"
            self._labels.add(lab)
            b.label = lab
        return b.label

    def branch(self, frm: Block, op: str, target: Block, compare: Instr | None = None) -> None:
        """End ``frm`` with ``compare`` (an s_cmp_* / VALU compare, unscheduled) and the conditional
        branch ``op`` to ``target``; otherwise ``frm`` falls through to the next block."""
        if op not in COND_BRANCHES:
            raise IRError(f"branch {op!r} is not one of {COND_BRANCHES}")
        if compare is not None:
            frm.end_with(compare, (CoreTag.ADDR, CoreTag.COND))
        frm.end_with(Instr(op, (Label(self.label_of(target)),)), (CoreTag.BRANCH,))

    def jump(self, frm: Block, target: Block) -> None:
        """End ``frm`` with ``s_branch`` to ``target``."""
        frm.end_with(Instr("s_branch", (Label(self.label_of(target)),)), (CoreTag.BRANCH,))

    @contextmanager
    def do_loop(self, counter: VReg | Reg, label: str = "loop",
             name: str | None = None) -> Iterator[Block]:
        """``with k.do_loop(counter, "loop_k") as head:`` a do-while running ``counter`` (>= 1, set
        before the loop) times over the blocks made inside the ``with`` (``head`` first); the
        control goes after the last non-cold one. Loops nest. After the ``with``, code continues
        in a new block (``k.block(...)``) or the epilogue."""
        lp = Loop(self, counter, label, self._open[-1] if self._open else None)
        self.loops.append(lp)
        self._open.append(lp)
        try:
            lp.header = self.block(name or label, role="loop", label=label)
            yield lp.header
        finally:
            self._open.pop()
        lp.latch = next(b for b in reversed(self._mid) if b in lp.blocks)
        for i in lp.control_instrs():
            lp.latch.end_with(i, (CoreTag.LOOP_CTRL,))
        if lp.cold:
            end = self._new(f"{label}_end", "loop" if self._open else "epilogue",
                            label=f"{label}_end")
            jmp = self.block(f"{label}_exit")
            self.jump(jmp, end)
            self._mid.extend(lp.cold)
            end.loop = self._open[-1] if self._open else None
            for o in self._open:
                o.blocks.append(end)
            self._mid.append(end)

    def make_loop(self, counter: VReg | Reg, label: str = "loop") -> Block:
        """A one-block do-while loop (placed before the epilogue); returns its body block."""
        with self.do_loop(counter, label, name="loop") as body:
            pass
        return body

    def add_conditional_barrier(self, where: str, compare: Instr) -> None:
        """An ``s_barrier`` only the waves with SCC = 1 after ``compare`` execute (the module
        docstring of ``asmgen.ir``); ``where`` is "prologue_end" or "epilogue_start"."""
        if where not in COND_PLACES:
            raise IRError(f"conditional barrier place {where!r} is not one of {COND_PLACES}")
        if not isinstance(compare, Instr) or not compare.op.startswith("s_cmp"):
            raise IRError(f"conditional barrier: {compare!r} is not an s_cmp_* setting SCC")
        self.check_operands(compare)
        role = "prologue" if where == "prologue_end" else "epilogue"
        n = self._skips
        self._skips += 1
        if where == "prologue_end":
            frm = self._pro[-1]
        else:
            frm = self._new(f"cond_test{n}", role)
        bar = self._new(f"cond_barrier{n}", role)
        bar.add(Instr("s_barrier"), (CoreTag.BARRIER, CoreTag.COND_BARRIER))
        bar.hoist_waits = True
        skip = self._new(f"cond_skip{n}", role, label=f"cond_barrier_skip{n}")
        self.branch(frm, "s_cbranch_scc0", skip, compare)
        if where == "prologue_end":
            self._pro += [bar, skip]
        else:
            self._epi_head += [frm, bar, skip]

    def add_early_exit(self, compare: Instr) -> None:
        """At the prologue's end: the waves with SCC = 1 after ``compare`` execute ``s_endpgm``
        (a workgroup with nothing to do, e.g. a varlen Q-block past its sequence); the others
        branch over it. Workgroup-uniform conditions only when the kernel has barriers."""
        if not isinstance(compare, Instr) or not compare.op.startswith("s_cmp"):
            raise IRError(f"early exit: {compare!r} is not an s_cmp_* setting SCC")
        self.check_operands(compare)
        n = self._skips
        self._skips += 1
        frm = self._pro[-1]
        ex = self._new(f"exit{n}", "prologue")
        ex.end_with(Instr("s_endpgm"), (CoreTag.END,))
        skip = self._new(f"exit_skip{n}", "prologue", label=f"exit_skip{n}")
        self.branch(frm, "s_cbranch_scc0", skip, compare)
        self._pro += [ex, skip]

    def blocks(self) -> list[Block]:
        """Every block in layout order."""
        return self._pro + self._mid + self._epi_head + [self.epilogue]

    def successors(self) -> dict[str, list[str]]:
        """Block name -> successor block names (the epilogue's ``s_endpgm`` ends the kernel)."""
        bl = self.blocks()
        labels = {b.label: i for i, b in enumerate(bl) if b.label is not None}
        tails = [[i for i, _ in b.term] for b in bl]
        tails[-1] = tails[-1] + [Instr("s_endpgm")]
        succ = block_successors([b.name for b in bl], labels, tails)
        return {b.name: [bl[j].name for j in ss] for b, ss in zip(bl, succ)}

    @property
    def loop(self) -> Loop | None:
        """The first outermost loop (None without one): the loop of a one-loop kernel."""
        return next((lp for lp in self.loops if lp.parent is None), None)

    def next_node_id(self) -> int:
        self._next_node += 1
        return self._next_node - 1

    def new_node(self, instr: Instr, tags: Iterable[str] = (), comment: str = "") -> Node:
        """A node not yet in any block (passes use this for inserted s_waitcnt / s_nop); its tags
        are checked against the kernel's vocabulary."""
        return Node(self.next_node_id(), instr, self.tags.members(tags, instr.op), comment=comment)
