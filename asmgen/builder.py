"""KernelBuilder: collect instructions and labels, rejecting each bad instruction before LLVM sees it.

Every check reads the spec table (``isa.tables``): operand count, operand kind (SGPR/VGPR/AGPR/
inline constant/literal/special/label), register width and alignment (``OperandSpec.align``: 64-bit
tuples even on gfx90a+, SGPR quads 4-aligned), modifiers the form accepts, and the arch. On top of
the table it checks what llvm-mc would silently get wrong or what the hardware forbids:
- immediate offsets: MUBUF/MTBUF/FLAT 0..4095 (llvm-mc 22 masks larger values, cdna-facts section
  5 and 10), GLOBAL/SCRATCH -4096..4095, DS ``offset`` 0..65535 and ``offset0/1`` 0..255, SMEM
  21-bit signed;
- MFMA C (src2) and D (vdst) in the same register file (one ``acc_cd`` bit selects both);
- registers beyond the budget given to the builder;
- branches to labels that are never defined (checked by ``program()``).
A rejection is a ``BuildError`` naming the instruction, the operand and the rule.
"""
from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from isa.errors import OperandError, UnknownInstruction
from isa.instr import Instr
from isa.operands import SPECIAL_WIDTH, Imm, Label, Operand, Reg, Special
from isa.spec import ARCHES, InstrSpec, OperandSpec

from .errors import BuildError
from .program import Item, KernelResources, Program

_ENCODINGS = ("e32", "e64", "dpp", "sdwa")

# Immediate offset ranges (cdna-facts section 5): format -> {modifier: (lo, hi)}.
OFFSET_RANGES: dict[str, dict[str, tuple[int, int]]] = {
    "MUBUF": {"offset": (0, 4095)},
    "MTBUF": {"offset": (0, 4095)},
    "FLAT": {"offset": (0, 4095)},
    "GLOBAL": {"offset": (-4096, 4095)},
    "SCRATCH": {"offset": (-4096, 4095)},
    "DS": {"offset": (0, 65535), "offset0": (0, 255), "offset1": (0, 255)},
    "SMEM": {"offset": (-(1 << 20), (1 << 20) - 1)},
}
SIMM16 = (-(1 << 15), (1 << 16) - 1)
_FILE_WORD = {"s": "SGPR", "v": "VGPR", "a": "AGPR"}


def operand_kind(op: Operand) -> str:
    """The kind letter of an operand (``isa.spec.KIND_LETTERS``)."""
    if isinstance(op, Reg):
        return op.file
    if isinstance(op, Special):
        return "o" if op.name == "off" else "x"
    if isinstance(op, Label):
        return "b"
    if isinstance(op, Imm):
        return "i" if op.is_inline else "l"
    raise BuildError(f"operand {op!r} is not a Reg, Special, Imm or Label", rule="operand type")


def _imm_field(spec: InstrSpec, ospec: OperandSpec) -> tuple[int, int] | None:
    """Range of an immediate that is an instruction field rather than an inline constant."""
    if spec.fmt in ("SOPP", "SOPK"):
        return SIMM16
    if spec.fmt == "SMEM" and ospec.name in ("soffset", "offset"):
        return OFFSET_RANGES["SMEM"]["offset"]
    return None


def validate(instr: Instr, spec: InstrSpec, arch: str,
             budget: Mapping[str, int] | None = None) -> None:
    """Raise BuildError if ``instr`` breaks a rule of ``spec`` on ``arch`` (see the module docstring)."""
    if arch not in spec.archs:
        raise BuildError(f"{spec.name} does not exist on {arch} (only on {sorted(spec.archs)})",
                         instr=instr, rule="instruction exists on the arch")
    ops = instr.operands
    required = sum(1 for o in spec.operands if not o.optional)
    if not required <= len(ops) <= len(spec.operands):
        want = f"{required}" if required == len(spec.operands) else f"{required}..{len(spec.operands)}"
        names = ", ".join(o.name for o in spec.operands)
        raise BuildError(f"takes {want} operands ({names}), got {len(ops)}", instr=instr,
                         rule="operand count")
    for op, ospec in zip(ops, spec.operands, strict=False):
        _check_operand(instr, spec, ospec, op, budget)
    _check_mods(instr, spec)
    if spec.mfma is not None or spec.has("mfma"):
        _check_mfma(instr, spec)


def _check_operand(instr: Instr, spec: InstrSpec, ospec: OperandSpec, op: Operand,
                   budget: Mapping[str, int] | None) -> None:
    name = ospec.name
    if isinstance(op, Imm) and "i" in ospec.kinds:
        field = _imm_field(spec, ospec)
        if field is not None:
            if isinstance(op.value, float) or not field[0] <= op.value <= field[1]:
                raise BuildError(f"operand {name} = {op} is outside the immediate field range "
                                 f"{field[0]}..{field[1]}", instr=instr, operand=name, rule="immediate range")
            return
    kind = operand_kind(op)
    if kind not in ospec.kinds:
        allowed = _describe_kinds(ospec.kinds)
        what = {"s": "an SGPR", "v": "a VGPR", "a": "an AGPR", "i": "an inline constant",
                "l": "a 32-bit literal (not an inline constant)", "x": f"special register {op}",
                "o": "off", "b": "a label"}[kind]
        raise BuildError(f"operand {name} is {what} ({op}); it takes {allowed}", instr=instr,
                         operand=name, rule="operand kind")
    if isinstance(op, Reg):
        width = spec.operand_width(spec.operands.index(ospec), instr.operands)
        if op.count != width:
            raise BuildError(f"operand {name} is {op.count} dword(s) wide ({op}); it needs {width}",
                             instr=instr, operand=name, rule="operand width")
        if ospec.align > 1 and width > 1 and op.index % ospec.align:
            raise BuildError(f"operand {name} = {op} starts at {op.file}{op.index}, which is not a "
                             f"multiple of {ospec.align} ({_FILE_WORD[op.file]} tuples of {ospec.width} "
                             f"dwords must be {ospec.align}-aligned on gfx90a+)", instr=instr,
                             operand=name, rule="register alignment")
        if budget is not None and op.file in budget and op.last >= budget[op.file]:
            raise BuildError(f"operand {name} = {op} reaches {op.file}{op.last}, beyond the budget of "
                             f"{budget[op.file]} {op.file.upper()}GPRs ({op.file}0..{op.file}"
                             f"{budget[op.file] - 1})", instr=instr, operand=name, rule="register budget")
    elif isinstance(op, Special) and op.count and ospec.width and op.count != ospec.width:
        raise BuildError(f"operand {name} = {op} is {op.count} dword(s) wide; it needs {ospec.width}",
                         instr=instr, operand=name, rule="operand width")


def _describe_kinds(kinds: str) -> str:
    words = {"s": "SGPR", "v": "VGPR", "a": "AGPR", "i": "inline constant", "l": "literal",
             "x": "special register", "o": "off", "b": "label"}
    return " or ".join(words[k] for k in kinds)


def _check_mods(instr: Instr, spec: InstrSpec) -> None:
    for mname, val in instr.mods:
        if mname not in spec.mods:
            raise BuildError(f"modifier {mname!r} is not accepted by {spec.name} (accepted: "
                             f"{', '.join(sorted(spec.mods)) or 'none'})", instr=instr, operand=mname,
                             rule="modifier accepted")
        rng = OFFSET_RANGES.get(spec.fmt, {}).get(mname)
        if rng is not None and (isinstance(val, bool) or not isinstance(val, int)
                                or not rng[0] <= val <= rng[1]):
            extra = " (llvm-mc silently masks larger MUBUF offsets)" if spec.fmt == "MUBUF" else ""
            raise BuildError(f"{mname}:{val} is outside {rng[0]}..{rng[1]} for {spec.fmt}{extra}",
                             instr=instr, operand=mname, rule=f"{spec.fmt} {mname} range")


def _check_mfma(instr: Instr, spec: InstrSpec) -> None:
    # D (vdst) and C (src2) share one register file: the MAI encoding has a single acc_cd bit.
    idx = {o.name: i for i, o in enumerate(spec.operands)}
    d_i, c_i = idx.get("vdst", 0), idx.get("src2", 3)
    ops = instr.operands
    if (c_i < len(ops) and isinstance(ops[d_i], Reg) and isinstance(ops[c_i], Reg)
            and ops[d_i].file != ops[c_i].file):
        raise BuildError(f"MFMA D (vdst = {ops[d_i]}) and C (src2 = {ops[c_i]}) are in different register "
                         "files; both must be VGPRs or both AGPRs", instr=instr, operand="src2",
                         rule="MFMA C and D in one file")


SpecLookup = Callable[[Instr], InstrSpec]


class KernelBuilder:
    """Collects a validated instruction stream for one arch.

    ``specs`` (optional) is a ``{key: InstrSpec}`` table to use instead of ``isa.tables`` (tests).
    ``max_vgprs``/``max_agprs``/``max_sgprs`` are the register budget: using a register beyond it
    is a BuildError.
    """

    def __init__(self, arch: str, *, specs: Mapping[str, InstrSpec] | None = None,
                 max_vgprs: int = 256, max_agprs: int = 256, max_sgprs: int = 102) -> None:
        if arch not in ARCHES:
            raise BuildError(f"arch {arch!r} is not one of {ARCHES}", rule="known arch")
        self.arch = arch
        self._specs = specs
        self.budget = {"v": max_vgprs, "a": max_agprs, "s": max_sgprs}
        self.items: list[Item] = []
        self._labels: set[str] = set()
        self._used = {"v": 0, "a": 0, "s": 0}   # highest index used + 1, per file

    # --- spec lookup ----------------------------------------------------------------------------
    def spec_of(self, instr: Instr) -> InstrSpec:
        if self._specs is None:
            from isa import tables
            try:
                return tables.spec_for(self.arch, instr)
            except UnknownInstruction as exc:
                raise BuildError(str(exc), instr=instr, rule="instruction exists on the arch") from exc
        key = instr.op
        if instr.has("lds") and f"{key} lds" in self._specs:
            key += " lds"
        elif instr.has("sc0") and f"{key} rtn" in self._specs:
            key += " rtn"
        if key not in self._specs:
            raise BuildError(f"instruction {instr.op!r} is not in the {self.arch} table", instr=instr,
                             rule="instruction exists on the arch")
        return self._specs[key]

    # --- building -------------------------------------------------------------------------------
    def emit(self, op: str, *operands: Operand | float | str, encoding: str = "",
             **mods: Any) -> Instr:
        """Validate and append ``op operands... mods...``; returns the Instr.

        Operands may be Reg/Special/Imm/Label, a Python int/float (an immediate) or a str (a special
        register name such as ``"vcc"``/``"off"``, else a label). Modifiers are keyword arguments in
        print order (``offen=True, offset=16``); ``False``/``None`` leave one out.
        """
        for enc in _ENCODINGS:
            if op.endswith("_" + enc) and not encoding:
                op, encoding = op[: -len(enc) - 1], enc
        try:
            ops = tuple(_as_operand(o) for o in operands)
        except OperandError as exc:
            raise BuildError(f"{op}: {exc}", rule="operand value") from exc
        instr = Instr(op, ops, tuple((k, v) for k, v in mods.items() if v is not None and v is not False),
                      encoding)
        return self.add(instr)

    def add(self, instr: Instr) -> Instr:
        """Validate and append a ready-made Instr."""
        if instr.encoding and instr.encoding not in _ENCODINGS:
            raise BuildError(f"encoding {instr.encoding!r} is not one of {_ENCODINGS}", instr=instr,
                             rule="encoding")
        spec = self.spec_of(instr)
        validate(instr, spec, self.arch, self.budget)
        for o in instr.operands:
            if isinstance(o, Reg):
                self._used[o.file] = max(self._used[o.file], o.last + 1)
        self.items.append(instr)
        return instr

    def label(self, name: str) -> str:
        """Define ``name`` at the current point of the stream."""
        if name in self._labels:
            raise BuildError(f"label {name!r} is defined twice", operand=name, rule="unique labels")
        Program([name])  # checks the spelling
        self._labels.add(name)
        self.items.append(name)
        return name

    # --- results --------------------------------------------------------------------------------
    def used(self, file: str) -> int:
        """Registers of ``file`` ('s'|'v'|'a') used so far: highest index + 1."""
        return self._used[file]

    def program(self) -> Program:
        """The stream as a Program; every branch target must be a defined label."""
        for it in self.items:
            if isinstance(it, Instr):
                for o in it.operands:
                    if isinstance(o, Label) and o.name not in self._labels:
                        raise BuildError(f"branch target {o.name!r} is never defined", instr=it,
                                         operand=o.name, rule="labels defined")
        return Program(self.items)

    def resources(self, name: str, **kw: Any) -> KernelResources:
        """KernelResources with register counts taken from what the stream uses (overridable in kw).

        SGPRs cover at least the user and system SGPRs the hardware initialises."""
        kw.setdefault("vgprs", self._used["v"])
        kw.setdefault("agprs", self._used["a"])
        if "sgprs" not in kw:
            probe = KernelResources(name, self.arch, vgprs=kw["vgprs"], agprs=kw["agprs"], sgprs=102,
                                    **{k: v for k, v in kw.items() if k not in ("vgprs", "agprs")})
            kw["sgprs"] = max(self._used["s"], probe.first_free_sgpr)
        return KernelResources(name, self.arch, **kw)


def _as_operand(o: Operand | float | str) -> Operand:
    if isinstance(o, (Reg, Special, Imm, Label)):
        return o
    if isinstance(o, bool):
        raise OperandError("a bool is not an operand")
    if isinstance(o, (int, float)):
        return Imm(o)
    if isinstance(o, str):
        return Special(o) if o in SPECIAL_WIDTH else Label(o)
    raise OperandError(f"{o!r} is not an operand")
