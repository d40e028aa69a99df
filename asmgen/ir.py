"""The kernel IR: tagged instruction nodes over virtual registers, grouped into blocks of a kernel.

How a template builds a kernel
------------------------------
::

    from isa.instr import Instr
    from isa.operands import Imm, Special, s, v
    from asmgen.ir import KernelIR

    k = KernelIR(arch="gfx942", name="gemm_f16")
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
             tags={"gr_a"}, stage=0)
    body.add(Instr("ds_write_b128", (tid, ld)), tags={"lw_a"}, lds_write="A0")
    body.add(Instr("s_barrier"), tags={"barrier"})
    x = k.vreg("v", 4)
    body.add(Instr("ds_read_b128", (x, tid)), tags={"lr_a"}, lds_read="A0")
    body.add(Instr("v_mfma_f32_32x32x8_f16", (acc, x.sub(0, 2), x.sub(2, 2), acc)), tags={"mfma"})
    e = k.epilogue
    ...
    k.lds_bytes = 32768

Rules a template must follow
  * Operands of an ``Instr`` are ``VReg`` (virtual, allocated later), ``isa.operands.Reg`` (a
    physical register, reserved for the whole kernel), ``Special``, ``Imm`` or ``Label``.
    A sub-range of a virtual tuple is ``vreg.sub(offset, count)``; it is a ``VReg`` too.
  * Registers of the kernel ABI (kernarg pointer, workgroup ids, v0 workitem ids) are made with
    ``precolored(file, Reg, name)``: a virtual register the allocator pins to that Reg.
  * Do NOT add ``s_waitcnt`` or hazard ``s_nop`` nodes: passes insert them from dataflow.
    ``s_barrier`` and ``s_setprio`` are ordinary nodes (tags ``barrier`` / ``setprio``).
  * Tag nodes for recipes: ``gr_a gr_b`` (global reads), ``lw_a lw_b`` (LDS writes), ``lr_a lr_b``
    (LDS reads), ``mfma``, ``addr`` (address/SALU/VALU bookkeeping), ``barrier``, ``setprio``,
    ``store`` (epilogue global stores); any other string is allowed too.
  * LDS buffers are named regions: pass ``lds_write=`` (ds_write, LDS-DMA loads) and
    ``lds_read=`` (ds_read) with a region id (e.g. "A0", "B1"). Two LDS ops with different
    regions never alias; an LDS op with no region aliases everything. The waitcnt pass uses the
    regions to wait for LDS-DMA (vmcnt) only before ds_reads of the region the DMA writes.
    An LDS-DMA whose data other waves first read only after its ``publish_after``-th barrier
    (multi-buffering: a buffer filled d blocks ahead) passes ``publish_after=d``; the default 1
    makes the next ``s_barrier`` wait for it.
  * Program order in a block is the reference semantics: the DAG (``asmgen.dag``) keeps every
    register/memory/barrier dependence of that order, and any schedule the DAG allows is legal.
  * The loop is a do-while over ``Loop.body`` with an SGPR trip counter the template sets in the
    prologue (>= 1). The loop control (``s_sub_u32 c, c, 1``; ``s_cmp_lg_u32 c, 0``;
    ``s_cbranch_scc1 label``) is appended by ``Loop.control_instrs()`` after scheduling, so the
    template must not write the counter in the body itself. ``s_endpgm`` is appended after the
    epilogue by the pass manager.
  * A *conditional* ``s_barrier`` (only some waves of the workgroup execute it, e.g. the 8-wave
    ping-pong offset of cdna-facts section 9.3) is ``k.add_conditional_barrier(where, compare)``:
    ``compare`` (an ``s_cmp_*`` setting SCC = "this wave takes the barrier") and the barrier are
    appended to the scheduled prologue (``where="prologue_end"``) or put before the scheduled
    epilogue (``"epilogue_start"``), unscheduled, so nothing is moved between them. The barrier
    node carries the tag ``cond_barrier``; ``Stream.items`` emits it as ``s_cbranch_scc0 skip;
    s_barrier; skip:``. The passes see one ``s_barrier`` node: the waits it needs are inserted
    before it, i.e. before the branch, so they run on both paths (the state after the label is
    the same either way); the hazard pass counts it as one wait state, no more than either path
    provides (branch taken: 1; not taken: branch + barrier = 2).
  * Node fields: ``priority`` is read by the scheduler's default priority (higher first, then
    critical-path height); ``stage``, ``iteration`` and ``group`` are bookkeeping for templates
    and recipes (the scheduler itself orders by the recipe's ``priority(node)`` and
    ``SchedGroup`` tag masks, see ``asmgen.sched.list_sched``).
"""
from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

from isa.instr import Instr
from isa.operands import REG_FILE_SIZE, Imm, Label, Reg, Special

from .errors import AsmgenError


class IRError(AsmgenError):
    """A kernel IR built wrongly: bad virtual register, operand or structure (names the value)."""

COND_PLACES = ("prologue_end", "epilogue_start")

FILES = ("s", "v", "a")


@dataclass(frozen=True, slots=True)
class VReg:
    """A virtual register tuple of ``count`` dwords in file ``file`` ('s' | 'v' | 'a').

    ``id`` names the allocation root (one contiguous tuple of ``KernelIR.vreg_root(id).count``
    registers); a sub-range has ``offset`` > 0 or a smaller ``count`` and shares the root's id.
    ``align`` is the root's required alignment of its first physical register.
    """

    file: str
    id: int
    count: int = 1
    align: int = 1
    offset: int = 0
    name: str = ""

    def __post_init__(self) -> None:
        if self.file not in FILES:
            raise IRError(f"virtual register file {self.file!r} is not one of {FILES}")
        if self.count < 1 or self.offset < 0:
            raise IRError(f"virtual register %{self.file}{self.id}: count {self.count} / offset "
                          f"{self.offset} invalid")
        if self.align not in (1, 2, 4, 8, 16):
            raise IRError(f"virtual register %{self.file}{self.id}: alignment {self.align} is not "
                          f"a power of two <= 16")

    def sub(self, offset: int, count: int = 1) -> VReg:
        """The ``count`` registers starting ``offset`` registers into this (sub-)range."""
        if offset < 0 or offset + count > self.count:
            raise IRError(f"sub-range +{offset}x{count} is outside {self} ({self.count} regs)")
        return VReg(self.file, self.id, count, self.align, self.offset + offset, self.name)

    @property
    def units(self) -> range:
        """Offsets within the root this range covers."""
        return range(self.offset, self.offset + self.count)

    def __str__(self) -> str:
        base = f"%{self.file}{self.id}"
        if self.offset == 0 and self.count == 1:
            return base
        if self.count == 1:
            return f"{base}[{self.offset}]"
        return f"{base}[{self.offset}:{self.offset + self.count - 1}]"


AnyOperand = VReg | Reg | Special | Imm | Label


@dataclass(eq=False, slots=True)
class Node:
    """One instruction of a block with its scheduling attributes. Hash/eq are by identity.

    ``lds_read`` / ``lds_write``: LDS region id touched (None = none, or "*" = any region).
    ``publish_after`` (LDS-DMA loads only): the number of ``s_barrier``s this wave passes, counted
    from the DMA (across the loop back-edge too), before other waves first read its data; the
    waitcnt pass makes that barrier, not an earlier one, wait for it (1 = the next barrier).
    Waitcnt/nop nodes inserted by passes carry the tag ``wait`` / ``nop``.
    """

    id: int
    instr: Instr
    tags: frozenset[str] = frozenset()
    stage: int = 0
    iteration: int = 0
    group: int | None = None
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
    """A straight-line region: nodes in program order (the reference order for the DAG)."""

    def __init__(self, kernel: KernelIR, name: str) -> None:
        self.kernel = kernel
        self.name = name
        self.nodes: list[Node] = []

    def add(self, instr: Instr, tags: Iterable[str] = (), *, stage: int = 0, iteration: int = 0,
            group: int | None = None, priority: int = 0, lds_read: str | None = None,
            lds_write: str | None = None, comment: str = "", publish_after: int = 1) -> Node:
        """Append ``instr`` (operands may be VRegs) and return its node."""
        if not isinstance(instr, Instr):
            raise IRError(f"Block.add wants an isa.instr.Instr, got {type(instr).__name__}: {instr!r}")
        for o in instr.operands:
            if not isinstance(o, (VReg, Reg, Special, Imm, Label)):
                raise IRError(f"operand {o!r} of {instr.op} is not a VReg/Reg/Special/Imm/Label")
            if isinstance(o, VReg):
                self.kernel.check_vreg(o)
        if type(publish_after) is not int or publish_after < 1:
            raise IRError(f"publish_after={publish_after!r} of {instr.op}: must be an int >= 1")
        if publish_after != 1 and not dict(instr.mods).get("lds"):
            raise IRError(f"publish_after={publish_after} on {instr.op}: only LDS-DMA loads "
                          f"(modifier lds) are published by a later barrier")
        node = Node(self.kernel.next_node_id(), instr, frozenset(tags), stage, iteration, group,
                    priority, lds_read, lds_write, comment, publish_after)
        self.nodes.append(node)
        return node

    def __iter__(self) -> Iterator[Node]:
        return iter(self.nodes)

    def __len__(self) -> int:
        return len(self.nodes)

    def __repr__(self) -> str:
        return f"Block({self.name}, {len(self.nodes)} nodes)"


class Loop:
    """A do-while loop over ``body``; ``counter`` is an SGPR (VReg or Reg) holding the trip count."""

    def __init__(self, kernel: KernelIR, counter: VReg | Reg, label: str) -> None:
        if counter.file != "s" or counter.count != 1:
            raise IRError(f"loop counter {counter} must be a single SGPR")
        self.body = Block(kernel, "loop")
        self.counter = counter
        self.label = label

    def control_instrs(self) -> list[Instr]:
        """The back-edge appended after the scheduled body (SOP2/SOPC/SOPP)."""
        c = self.counter
        return [Instr("s_sub_u32", (c, c, Imm(1))), Instr("s_cmp_lg_u32", (c, Imm(0))),
                Instr("s_cbranch_scc1", (Label(self.label),))]


@dataclass(slots=True)
class Precolor:
    vreg: VReg
    reg: Reg


class KernelIR:
    """A kernel: prologue block, optional do-while loop, epilogue block, registers, LDS size."""

    def __init__(self, arch: str, name: str = "kernel") -> None:
        if arch not in ("gfx942", "gfx950"):
            raise IRError(f"arch {arch!r} is not gfx942 or gfx950")
        self.arch = arch
        self.name = name
        self.prologue = Block(self, "prologue")
        self.loop: Loop | None = None
        self.epilogue = Block(self, "epilogue")
        self.lds_bytes = 0
        # unscheduled (instr, tags) lists: after the scheduled prologue / before the epilogue
        self.prologue_tail: list[tuple[Instr, frozenset[str]]] = []
        self.epilogue_head: list[tuple[Instr, frozenset[str]]] = []
        self._roots: dict[int, VReg] = {}
        self.precolors: dict[int, Reg] = {}   # vreg root id -> physical register
        self._next_node = 0

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

    # structure
    def make_loop(self, counter: VReg | Reg, label: str = "loop") -> Block:
        """Create the kernel's (single) do-while loop; returns its body block."""
        if self.loop is not None:
            raise IRError("KernelIR supports one loop; make_loop called twice")
        self.loop = Loop(self, counter, label)
        return self.loop.body

    def add_conditional_barrier(self, where: str, compare: Instr) -> None:
        """An ``s_barrier`` only the waves with SCC = 1 after ``compare`` execute (see the module
        docstring); ``where`` is "prologue_end" or "epilogue_start"."""
        if where not in COND_PLACES:
            raise IRError(f"conditional barrier place {where!r} is not one of {COND_PLACES}")
        if not isinstance(compare, Instr) or not compare.op.startswith("s_cmp"):
            raise IRError(f"conditional barrier: {compare!r} is not an s_cmp_* setting SCC")
        for o in compare.operands:
            if isinstance(o, VReg):
                self.check_vreg(o)
        pair = [(compare, frozenset({"addr", "cond"})),
                (Instr("s_barrier"), frozenset({"barrier", "cond_barrier"}))]
        (self.prologue_tail if where == "prologue_end" else self.epilogue_head).extend(pair)

    def blocks(self) -> list[Block]:
        out = [self.prologue]
        if self.loop is not None:
            out.append(self.loop.body)
        out.append(self.epilogue)
        return out

    def next_node_id(self) -> int:
        self._next_node += 1
        return self._next_node - 1

    def new_node(self, instr: Instr, tags: Iterable[str] = (), comment: str = "") -> Node:
        """A node not yet in any block (passes use this for inserted s_waitcnt / s_nop)."""
        return Node(self.next_node_id(), instr, frozenset(tags), comment=comment)


@dataclass
class Stream:
    """A scheduled kernel: ordered node lists. Passes rewrite it in place (insert waits, nops,
    replace VRegs by Regs). ``body`` is None when the kernel has no loop; ``body`` already ends
    with the loop control nodes (tag ``loop_ctrl``); ``epilogue`` ends with ``s_endpgm``."""

    kernel: KernelIR
    prologue: list[Node]
    body: list[Node] | None
    epilogue: list[Node]
    allocation: dict[int, Reg] = field(default_factory=dict)   # vreg root id -> physical Reg
    # results passes hand to later passes (e.g. the waitcnt analysis for liveness); an entry is
    # only valid for the exact instructions it was computed on (``Stream.instr_snapshot``)
    analysis: dict = field(default_factory=dict, repr=False, compare=False)

    def instr_snapshot(self) -> tuple:
        """The current instruction objects of every section (compare element-wise with ``is``)."""
        return tuple(tuple(n.instr for n in nodes) for _, nodes in self.sections())

    def same_instrs(self, snapshot: tuple) -> bool:
        """True when no instruction was inserted, removed or replaced since ``snapshot``."""
        now = self.sections()
        if len(now) != len(snapshot):
            return False
        for (_, nodes), old in zip(now, snapshot):
            if len(nodes) != len(old) or any(n.instr is not o for n, o in zip(nodes, old)):
                return False
        return True

    def sections(self) -> list[tuple[str, list[Node]]]:
        out = [("prologue", self.prologue)]
        if self.body is not None:
            out.append(("loop", self.body))
        out.append(("epilogue", self.epilogue))
        return out

    def items(self) -> list[Instr | str]:
        """Flat list for ``asmgen.emit`` / ``asmgen.program.Program``: instructions, and the loop
        label as a str where it is defined."""
        out: list[Instr | str] = []
        skips = 0

        def put(nodes: list[Node]) -> None:
            nonlocal skips
            for n in nodes:
                if "cond_barrier" in n.tags:     # s_cbranch_scc0 over the barrier (module doc)
                    label = f"cond_barrier_skip{skips}"
                    skips += 1
                    out.extend((Instr("s_cbranch_scc0", (Label(label),)), n.instr, label))
                else:
                    out.append(n.instr)

        put(self.prologue)
        if self.body is not None:
            assert self.kernel.loop is not None
            out.append(self.kernel.loop.label)
            put(self.body)
        put(self.epilogue)
        return out

    def text(self) -> str:
        """Human-readable listing (VRegs print as %v3[0:3])."""
        lines = []
        for name, nodes in self.sections():
            lines.append(f"; -- {name}")
            if name == "loop":
                lines.append(f"{self.kernel.loop.label}:")
            for n in nodes:
                lines.append(f"  {n.instr}" + (f"  ; {n.comment}" if n.comment else ""))
        return "\n".join(lines)
