"""Instruction nodes (``Node``) and basic blocks (``Block``) of the kernel IR.

A block is straight-line code: ``nodes`` (scheduled: the list scheduler reorders them within the
DAG) followed by ``term``, its unscheduled terminator (the instructions that end the block: a
compare and a branch, the loop control), kept in that order after scheduling. A block without a
branch at the end of its terminator falls through to the next block of the kernel's layout.
"""
from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any, Protocol

from isa.instr import Instr
from isa.operands import Label

from .regs import OPERAND_TYPES, IRError, VReg
from .tags import TagVocabulary


class BlockOwner(Protocol):
    """What a Block needs of the kernel that owns it (``asmgen.ir.kernel.KernelIR``): stated here
    so this module does not import the kernel module that imports it."""

    tags: TagVocabulary     # the tags of the kernel's kind (``asmgen.ir.tags``)

    def check_operands(self, instr: Instr) -> None: ...

    def next_node_id(self) -> int: ...


# SOPP branches (ISA guide "Program flow control"); the conditional ones also fall through
COND_BRANCHES = ("s_cbranch_scc0", "s_cbranch_scc1", "s_cbranch_vccz", "s_cbranch_vccnz",
                 "s_cbranch_execz", "s_cbranch_execnz")
JUMP = "s_branch"
ROLES = ("prologue", "loop", "epilogue")


def branch_target(instr: Instr) -> str | None:
    """The label a branch instruction jumps to (None for any other instruction)."""
    if instr.op in COND_BRANCHES or instr.op == JUMP:
        o = instr.operands[0] if instr.operands else None
        if not isinstance(o, Label):
            raise IRError(f"{instr}: a branch needs a Label operand")
        return o.name
    return None


@dataclass(eq=False, slots=True)
class Node:
    """One instruction of a block with its scheduling attributes. Hash/eq are by identity.

    ``lds_read`` / ``lds_write``: LDS region id touched (None = none, or "*" = any region).
    ``publish_after`` (LDS-DMA loads only): the number of ``s_barrier``s this wave passes, counted
    from the DMA (across the loop back-edge too), before other waves first read its data; the
    waitcnt pass makes that barrier, not an earlier one, wait for it (1 = the next barrier).
    ``tags``: declared tags (``asmgen.ir.tags``) of the kernel's vocabulary; waitcnt/nop nodes
    inserted by passes carry the core tags ``wait`` / ``nop``.
    """

    id: int
    instr: Instr
    tags: frozenset[str] = frozenset()
    priority: int = 0
    lds_read: str | None = None
    lds_write: str | None = None
    comment: str = ""
    publish_after: int = 1

    def has_tag(self, tag: str) -> bool:
        return tag in self.tags

    def __repr__(self) -> str:
        return f"Node({self.id}: {self.instr}{' ' + ','.join(sorted(self.tags)) if self.tags else ''})"


class Block:
    """A basic block: ``nodes`` in program order (the reference order for the DAG), then the
    unscheduled terminator ``term`` ((Instr, tags) pairs).

    ``role`` ("prologue" | "loop" | "epilogue") picks the recipe's per-block schedule
    (``for_block(role)``); ``label`` is the assembler label at the block's start (None when no
    branch targets it); ``loop`` is the innermost ``Loop`` the block belongs to. ``hoist_waits``:
    the s_waitcnt the block's first instruction needs is placed in its single predecessor before
    that block's branch, so every path out of the branch has it (the conditional barrier uses it:
    the waves that skip the barrier must not carry its outstanding LDS ops into the loop)."""

    def __init__(self, kernel: BlockOwner, name: str, role: str = "prologue",
                 label: str | None = None) -> None:
        if role not in ROLES:
            raise IRError(f"block {name!r}: role {role!r} is not one of {ROLES}")
        self.kernel = kernel
        self.name = name
        self.role = role
        self.label = label
        self.nodes: list[Node] = []
        self.term: list[tuple[Instr, frozenset[str]]] = []
        self.loop: Any = None       # the innermost asmgen.ir.kernel.Loop, or None
        self.hoist_waits = False

    def add(self, instr: Instr, tags: Iterable[str] = (), *, priority: int = 0,
            lds_read: str | None = None,
            lds_write: str | None = None, comment: str = "", publish_after: int = 1) -> Node:
        """Append ``instr`` (operands may be VRegs) and return its node. Every tag must be one
        the kernel's kind declares (a member of its ``TagVocabulary``, or that member's string):
        ``UnknownTag`` (an IRError) names any other and the kind."""
        if not isinstance(instr, Instr):
            raise IRError(f"Block.add wants an isa.instr.Instr, got {type(instr).__name__}: {instr!r}")
        self.kernel.check_operands(instr)
        if branch_target(instr) is not None or instr.op == "s_endpgm":
            raise IRError(f"{instr} in block {self.name}: branches end a block; use "
                          f"KernelIR.branch / jump / loop (they go in the block's terminator)")
        if type(publish_after) is not int or publish_after < 1:
            raise IRError(f"publish_after={publish_after!r} of {instr.op}: must be an int >= 1")
        if publish_after != 1 and not dict(instr.mods).get("lds"):
            raise IRError(f"publish_after={publish_after} on {instr.op}: only LDS-DMA loads "
                          f"(modifier lds) are published by a later barrier")
        tags = self.kernel.tags.members(tags, f"{instr.op} in block {self.name}")
        node = Node(self.kernel.next_node_id(), instr, tags, priority, lds_read, lds_write,
                    comment, publish_after)
        self.nodes.append(node)
        return node

    def end_with(self, instr: Instr, tags: Iterable[str] = ()) -> None:
        """Append ``instr`` to the unscheduled terminator (after every scheduled node); ``tags``
        are checked as in ``add``."""
        if not isinstance(instr, Instr):
            raise IRError(f"block {self.name}: terminator {instr!r} is not an Instr")
        if self.term and self.term[-1][0].op == JUMP:
            raise IRError(f"block {self.name} already ends with {self.term[-1][0]}")
        self.kernel.check_operands(instr)
        self.term.append((instr, self.kernel.tags.members(tags, f"{instr.op} ending block "
                                                                f"{self.name}")))

    def tag(self, nodes: Iterable[Node], *tags) -> None:
        """Add ``tags`` (checked as in ``add``) to ``nodes`` already built (e.g. every node of
        one phase of a loop body)."""
        extra = self.kernel.tags.members(tags, f"block {self.name}")
        for n in nodes:
            n.tags = n.tags | extra

    @property
    def in_loop(self) -> bool:
        return self.loop is not None

    def __iter__(self) -> Iterator[Node]:
        return iter(self.nodes)

    def __len__(self) -> int:
        return len(self.nodes)

    def __repr__(self) -> str:
        return f"Block({self.name}, {len(self.nodes)} nodes)"


def check_operand_types(instr: Instr) -> list[VReg]:
    """The VReg operands of ``instr``; raises on an operand of a type the IR does not allow."""
    out = []
    for o in instr.operands:
        if not isinstance(o, OPERAND_TYPES):
            raise IRError(f"operand {o!r} of {instr.op} is not a VReg/Reg/Special/Imm/Label")
        if isinstance(o, VReg):
            out.append(o)
    return out
