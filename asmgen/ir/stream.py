"""The scheduled kernel (``Stream``): every block's final node list in layout order, with the CFG
(successors, predecessors, natural loops) derived from the branch instructions at block ends.

Passes rewrite the node lists in place (insert waits and nops, replace VRegs by Regs) and keep
the CFG: an inserted instruction never goes after a block's branch.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from isa.instr import Instr

from .cfg import block_successors, natural_loops, predecessors
from .nodes import COND_BRANCHES, JUMP, Node

if TYPE_CHECKING:
    from .kernel import KernelIR


@dataclass(eq=False)
class SBlock:
    """One scheduled block: ``nodes`` end with its branch (if any); ``role`` as ``Block.role``."""

    name: str
    nodes: list[Node]
    role: str = "prologue"
    label: str | None = None
    hoist_waits: bool = False

    def terminator_start(self) -> int:
        """Index of the first node of the block's trailing branches (== len(nodes) if none):
        instructions a pass inserts at the block's end go there."""
        i = len(self.nodes)
        while i and self.nodes[i - 1].instr.op in (*COND_BRANCHES, JUMP, "s_endpgm"):
            i -= 1
        return i


class Stream:
    """A scheduled kernel: blocks of nodes in layout order (the last one ends with ``s_endpgm``).

    ``Stream(kernel, prologue, body, epilogue)`` builds the classic three-block shape (``body``
    None: no loop; else it ends with the loop control of ``kernel.loop``); ``Stream.of_blocks``
    takes any block list. ``prologue`` / ``body`` / ``epilogue`` are the nodes of the blocks of
    that role (one list, in layout order)."""

    def __init__(self, kernel: KernelIR, prologue: list[Node] | None = None,
                 body: list[Node] | None = None, epilogue: list[Node] | None = None,
                 blocks: list[SBlock] | None = None) -> None:
        self.kernel = kernel
        if blocks is None:
            blocks = [SBlock("prologue", prologue or [], "prologue")]
            if body is not None:
                assert kernel.loop is not None, "a loop body needs kernel.make_loop"
                blocks.append(SBlock("loop", body, "loop", kernel.loop.label))
            blocks.append(SBlock("epilogue", epilogue or [], "epilogue"))
        self.blocks = blocks
        self.allocation: dict = {}        # vreg root id -> physical Reg
        # results passes hand to later passes (e.g. the waitcnt analysis for liveness); an entry
        # is only valid for the exact instructions it was computed on (``instr_snapshot``)
        self.analysis: dict = {}
        self._cfg = None

    @classmethod
    def of_blocks(cls, kernel: KernelIR, blocks: list[SBlock]) -> Stream:
        return cls(kernel, blocks=blocks)

    # CFG
    def cfg(self) -> tuple[list[list[int]], list[list[int]]]:
        """(successors, predecessors) by block index (recomputed if a branch changed)."""
        key = tuple(tuple(id(n.instr) for n in b.nodes[-2:]) for b in self.blocks)
        if self._cfg is None or self._cfg[0] != key:
            labels = {b.label: i for i, b in enumerate(self.blocks) if b.label is not None}
            succ = block_successors([b.name for b in self.blocks], labels,
                                    [[n.instr for n in b.nodes[-2:]] for b in self.blocks])
            self._cfg = (key, succ, predecessors(succ))
        return self._cfg[1], self._cfg[2]

    def loops(self) -> list[tuple[int, int, frozenset[int]]]:
        """Natural loops (header, latch, block indices), see ``asmgen.ir.cfg.natural_loops``."""
        return natural_loops(self.cfg()[0])

    # classic views
    def _role_nodes(self, role: str) -> list[Node] | None:
        bl = [b for b in self.blocks if b.role == role]
        if not bl:
            return None
        if len(bl) == 1:
            return bl[0].nodes
        return [n for b in bl for n in b.nodes]

    @property
    def prologue(self) -> list[Node]:
        return self._role_nodes("prologue") or []

    @property
    def body(self) -> list[Node] | None:
        """Nodes of the loop blocks (None without a loop)."""
        return self._role_nodes("loop")

    @property
    def epilogue(self) -> list[Node]:
        return self._role_nodes("epilogue") or []

    def sections(self) -> list[tuple[str, list[Node]]]:
        """(block name, nodes) of every block in layout order."""
        return [(b.name, b.nodes) for b in self.blocks]

    def instr_snapshot(self) -> tuple:
        """The current instruction objects of every block (compare element-wise with ``is``)."""
        return tuple(tuple(n.instr for n in b.nodes) for b in self.blocks)

    def same_instrs(self, snapshot: tuple) -> bool:
        """True when no instruction was inserted, removed or replaced since ``snapshot``."""
        if len(self.blocks) != len(snapshot):
            return False
        for b, old in zip(self.blocks, snapshot):
            if len(b.nodes) != len(old) or any(n.instr is not o for n, o in zip(b.nodes, old)):
                return False
        return True

    def items(self) -> list[Instr | str]:
        """Flat list for ``asmgen.emit`` / ``asmgen.program.Program``: instructions, and block
        labels as str where they are defined."""
        out: list[Instr | str] = []
        for b in self.blocks:
            if b.label is not None:
                out.append(b.label)
            out.extend(n.instr for n in b.nodes)
        return out

    def text(self) -> str:
        """Human-readable listing (VRegs print as %v3[0:3])."""
        lines = []
        for b in self.blocks:
            lines.append(f"; -- {b.name}")
            if b.label is not None:
                lines.append(f"{b.label}:")
            for n in b.nodes:
                lines.append(f"  {n.instr}" + (f"  ; {n.comment}" if n.comment else ""))
        return "\n".join(lines)

