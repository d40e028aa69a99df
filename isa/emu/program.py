"""A program decoded once for the machine: per instruction its bound handler, spec, the register
keys it reads and writes, its register-budget footprint and its wait-state count.

Register keys are ints: SGPR i (incl. vcc_lo 106 / vcc_hi 107) -> i, VGPR i -> 1000 + i,
AGPR i -> 2000 + i. Read/write sets come from the spec table's operand roles (``isa.tables``);
when the table lacks a mnemonic the LLVM convention "destinations first" is used (first operand
written, the rest read) and the entry notes it.
"""
from __future__ import annotations

from collections.abc import Callable

from ..decode import mnemonics
from ..instr import Instr
from ..operands import Imm, Label, Reg
from . import catalog, hazard_check
from .errors import EmulatorError, UnknownInstructionError
from .regkeys import A_BASE, V_BASE, key_name, reg_keys  # noqa: F401  (re-exported)


def spec_lookup(arch: str) -> Callable | None:
    """``instr -> InstrSpec | None`` from isa.tables, or None when the tables are not available."""
    try:
        from ..errors import UnknownInstruction
        from ..tables import spec_for
    except ImportError:
        return None

    def find(ins: Instr):
        try:
            return spec_for(arch, ins)
        except UnknownInstruction:
            return None
    return find


class Entry:
    """One decoded instruction ready to step."""

    __slots__ = (
        "fn",
        "fp_mode_read",
        "gfn",
        "group_ok",
        "group_seen",
        "group_waves",
        "hz_cons",
        "hz_max",
        "hz_need",
        "hz_prod",
        "instr",
        "is_mfma",
        "max_a",
        "max_s",
        "max_v",
        "note",
        "offset",
        "pc",
        "reads",
        "rw_set",
        "spec",
        "writes",
        "ws",
    )

    def __init__(self, pc: int, instr: Instr) -> None:
        self.pc = pc
        self.instr = instr
        self.fn = None
        self.gfn = None          # the group binding (isa.emu.group), made at its first group step
        self.group_ok = False    # may this instruction step for a group of waves at one pc?
        # may its semantics depend on the MODE register's float fields (isa.emu.denorm: VALU and
        # MFMA only)? A group step needs its members to agree on them then
        self.fp_mode_read = instr.op.startswith("v_")
        self.group_seen = 0      # group steps that reached it before it was bound (Program.group_fn)
        self.group_waves = 0     # ... and the waves those group steps held
        self.spec = None
        self.reads: tuple[int, ...] = ()
        self.writes: tuple[int, ...] = ()
        self.rw_set: frozenset[int] = frozenset()   # reads | writes, for the fast pending test
        self.max_s = self.max_v = self.max_a = -1
        self.ws = 1
        self.note = ""
        self.offset = 0
        self.is_mfma = False
        self.hz_prod = -1       # bit mask of hazard rules this instruction can be the producer of
        self.hz_cons = -1       # ... the consumer of (isa.emu.hazard_check.classify)
        self.hz_max = 1 << 30   # most wait states any rule it produces can require
        self.hz_need: dict = {}  # producer pc -> wait states needed before this one (hazard_check)

    def __str__(self) -> str:
        return str(self.instr)


# What decoding an instruction gives depends only on (arch, Instr): its spec, register sets,
# budget footprint, wait states, hazard rule classes and bound function (a binder sees nothing but
# the instruction, its spec and the arch; the bound function keeps no state between calls). Kept
# across programs, so the fuzzer's many schedules of one kernel, and unrolled loops, decode each
# instruction once; the per-program fields of an Entry (pc, offset, group counters, hz_need) are
# set per program. Bounded: cleared when full. The order of _CACHED is the order of the tuple
# _decoded_fields returns and Program.__init__ unpacks.
_CACHED = ("spec", "reads", "writes", "rw_set", "max_s", "max_v", "max_a", "ws", "note", "is_mfma",
           "fn", "group_ok", "hz_prod", "hz_cons", "hz_max")
_DECODED: dict = {}
_GROUPED: dict = {}
_DECODED_MAX = 100_000
GROUP_BIND_AFTER = 3
GROUP_BIND_WAVES = 12     # ... or when this many waves reached it in group steps (a pool's groups)


class Program:
    """Decoded instruction list + labels, shared by every workgroup of a launch."""

    def __init__(self, instrs: list[Instr], labels: dict[str, int], arch: str,
                 offsets: list[int] | None = None) -> None:
        self.arch = arch
        self.labels = dict(labels)
        self.entries: list[Entry] = []
        self.hz_cache: dict = {}
        self.hazard_unchecked: set[str] = set()   # mnemonics without a spec: hazards not checked
        self.offsets = offsets
        get_spec = spec_lookup(arch)
        known = mnemonics(arch)
        for pc, ins in enumerate(instrs):
            if ins.op not in known:
                # a text program may name an instruction of the other arch (the decoder never
                # produces one): the hardware would not run it (mnemonics from LLVM's tables)
                raise UnknownInstructionError(
                    f"pc {pc}: {ins.op} does not exist on {arch} (not in LLVM's {arch} "
                    f"opcode table)")
            e = Entry(pc, ins)
            if offsets is not None:
                e.offset = offsets[pc]
            key = (arch, ins)
            hit = _DECODED.get(key)
            if hit is None:
                hit = _decoded_fields(e, get_spec, arch)
                if len(_DECODED) >= _DECODED_MAX:
                    _DECODED.clear()
                _DECODED[key] = hit
            (e.spec, e.reads, e.writes, e.rw_set, e.max_s, e.max_v, e.max_a, e.ws, e.note,
             e.is_mfma, e.fn, e.group_ok, e.hz_prod, e.hz_cons, e.hz_max) = hit
            self.entries.append(e)
        if offsets is not None:
            self.offset_to_pc = {off: pc for pc, off in enumerate(offsets)}

    def group_fn(self, e: Entry, n_members: int = 2):
        """``e``'s group binding, made once; None (and ``group_ok`` cleared) when its operand form
        steps per wave. Binding costs about as much as a dozen per-wave steps, so an instruction is
        bound for groups only when groups reach it the ``GROUP_BIND_AFTER``-th time, or when groups of
        ``GROUP_BIND_WAVES`` waves in all did (a straight-line prologue of one workgroup runs per
        wave; loop bodies, and the epilogue of many workgroups in a pool, go to groups). Either way gives the same bits
        (tests/emu/test_group_step.py), so this is a speed choice only."""
        if e.gfn is None:
            key = (self.arch, e.instr)
            if key not in _GROUPED:
                e.group_seen += 1
                e.group_waves += n_members
                if e.group_seen < GROUP_BIND_AFTER and e.group_waves < GROUP_BIND_WAVES:
                    return None
            if key in _GROUPED:
                e.gfn = _GROUPED[key]
            else:
                e.gfn = _GROUPED[key] = catalog.bind_group(e.instr, e.spec, self.arch)
                if len(_GROUPED) >= _DECODED_MAX:
                    _GROUPED.clear()
            if e.gfn is None:
                e.group_ok = False
        return e.gfn

    def reaches_sync(self) -> list[bool]:
        """Per pc: can a wave at this pc still reach an s_barrier or s_endpgm? (Static control flow
        from the spec's ``branch`` flag and Label operands; a branch without a label, such as
        s_setpc_b64, may go anywhere.) Computed once, used to report barrier deadlocks."""
        if getattr(self, "_reach", None) is not None:
            return self._reach
        n = len(self.entries)
        succ: list[list[int]] = [[] for _ in range(n)]
        anywhere = []
        sync = []
        for e in self.entries:
            sp, ins = e.spec, e.instr
            flags = sp.flags if sp is not None else frozenset()
            if "barrier" in flags or "endpgm" in flags or ins.op in ("s_barrier", "s_endpgm"):
                sync.append(e.pc)
                continue
            labels = [o for o in ins.operands if isinstance(o, Label)]
            if "branch" in flags or labels:
                if labels:
                    succ[e.pc] += [self.labels[lb.name] for lb in labels if lb.name in self.labels]
                else:
                    anywhere.append(e.pc)
                if ins.op == "s_branch":
                    continue
            if e.pc + 1 < n:
                succ[e.pc].append(e.pc + 1)
        pred: list[list[int]] = [[] for _ in range(n)]
        for a, bs in enumerate(succ):
            for b in bs:
                pred[b].append(a)
        reach = [False] * n
        stack = sync + anywhere
        for pc in stack:
            reach[pc] = True
        while stack:
            b = stack.pop()
            for a in pred[b]:
                if not reach[a]:
                    reach[a] = True
                    stack.append(a)
        self._reach = reach
        return reach

    def label_index(self, label) -> int:
        name = label.name if isinstance(label, Label) else str(label)
        try:
            return self.labels[name]
        except KeyError:
            raise EmulatorError(f"branch to unknown label {name!r}; labels are "
                                f"{sorted(self.labels)[:10]}") from None


def _decoded_fields(e: Entry, get_spec, arch: str) -> tuple:
    """The ``_CACHED`` fields of ``e`` (a fresh Entry of ``e.instr``), in that order."""
    ins = e.instr
    e.spec = _find_spec(get_spec, ins)
    _rw_sets(e)
    e.ws = _wait_states(ins)
    e.is_mfma = e.spec is not None and e.spec.mfma is not None
    e.fn = catalog.bind(ins, e.spec, arch)
    e.group_ok = catalog.groupable(ins.op)
    hazard_check.classify(arch, e)
    return tuple(getattr(e, f) for f in _CACHED)


def _find_spec(get_spec, ins: Instr):
    return None if get_spec is None else get_spec(ins)


def _wait_states(ins: Instr) -> int:
    """Wait states an issued instruction counts: 1, or N+1 for s_nop N (cdna-facts section 3)."""
    if ins.op == "s_nop":
        n = ins.operands[0].value if ins.operands and isinstance(ins.operands[0], Imm) else 0
        return int(n) + 1
    return 1


_FILE_BASE = {"s": 0, "v": V_BASE, "a": A_BASE}


def _loc_key(loc) -> int:
    return _FILE_BASE[loc[0]] + loc[1]


# (id(spec), shape) -> (spec, reads template, writes template); see _spec_rw
_RW_SHAPES: dict = {}


def _spec_rw(spec, ins: Instr) -> tuple[list[int], list[int]]:
    """Sorted register keys ``ins`` reads and writes by its spec's operand roles (one truth for
    them: isa.access, also used by isa.hazards and the passes).

    Cached per (spec, shape) as templates, the shape being the instruction without its VGPR and
    AGPR indices (``hazard_check.shape``: which operand slots are read or written, and how wide,
    depends on the spec, the mnemonic, the modifiers and the operand kinds and counts, never on
    which vector register an operand names). A template keeps the keys of the shape's fixed
    operands (SGPRs, specials, implicit registers) and, per vector operand read or written, its
    slot's position, file and count; ``_place`` puts this instruction's indices in. The fuzzer's
    schedules of one kernel differ mostly in their register allocation
    (tests/emu/test_program_decode.py compares templates with isa.access over many kernels)."""
    key = (id(spec), hazard_check.shape(ins))
    hit = _RW_SHAPES.get(key)
    if hit is None or hit[0] is not spec:
        from ..access import accesses
        reads, writes = accesses(spec, ins)
        names = [o.name for o in spec.operands]
        if len(set(names)) != len(names):     # slot names do not locate operands: no template
            return _keys(reads), _keys(writes)
        hit = (spec, _template(reads, names), _template(writes, names))
        if len(_RW_SHAPES) >= _DECODED_MAX:
            _RW_SHAPES.clear()
        _RW_SHAPES[key] = hit
    return _place(hit[1], ins), _place(hit[2], ins)


def _keys(accs) -> list[int]:
    return sorted({_loc_key(loc) for a in accs for loc in a.locs if loc[0] in _FILE_BASE})


def _template(accs, names: list[str]) -> tuple[frozenset, tuple]:
    fixed: set[int] = set()
    placed = []
    for a in accs:
        op = a.operand
        if isinstance(op, Reg) and op.file in ("v", "a") and a.slot in names:
            placed.append((names.index(a.slot), _FILE_BASE[op.file], op.count))
        else:
            fixed.update(_loc_key(loc) for loc in a.locs if loc[0] in _FILE_BASE)
    return frozenset(fixed), tuple(placed)


def _place(template, ins: Instr) -> list[int]:
    fixed, placed = template
    if not placed:
        return sorted(fixed)
    keys = set(fixed)
    for pos, base, count in placed:
        first = base + ins.operands[pos].index
        keys.update(range(first, first + count))
    return sorted(keys)


def _rw_sets(e: Entry) -> None:
    ins, spec = e.instr, e.spec
    reads: list[int] = []
    writes: list[int] = []
    custom = catalog.RW_SETS.get(ins.op)
    if custom is not None:
        reads, writes = custom(ins)
    elif spec is not None:
        reads, writes = _spec_rw(spec, ins)
    else:
        e.note = "no spec: first operand taken as written, the rest as read"
        for i, op in enumerate(ins.operands):
            (writes if i == 0 else reads).extend(reg_keys(op))
    e.reads = tuple(dict.fromkeys(reads))
    e.writes = tuple(dict.fromkeys(writes))
    e.rw_set = frozenset(e.reads) | frozenset(e.writes)
    for op in ins.operands:
        if isinstance(op, Reg):
            if op.file == "s":
                e.max_s = max(e.max_s, op.last)
            elif op.file == "v":
                e.max_v = max(e.max_v, op.last)
            else:
                e.max_a = max(e.max_a, op.last)
