"""Read LLVM AMDGPU assembly text (and llvm-objdump disassembly lines) into ``Instr`` objects.

``parse_line`` returns None for blank, comment, label-only, directive and objdump header lines.
Syntax read: ``_e32/_e64/_dpp/_sdwa`` suffixes (-> ``Instr.encoding``), registers (``v5``,
``v[4:7]``, ``s[0:1]``, ``a[0:15]``), special registers, ints (decimal, hex, negative), inline
floats, source modifiers (``-v1``, ``|v1|``, ``neg(v1)``, ``abs(v1)``, ``sext(v1)``: see
``isa.asm_format``), ``hwreg(...)`` (-> its simm16), ``s_waitcnt vmcnt(N) lgkmcnt(M)`` (-> one
``Imm(simm16)``), and modifiers: bare (``offen``, ``lds``, ``sc0``, ``clamp``, ``row_mirror``),
``name:int`` (``offset:16``, ``row_shr:1``, ``row_mask:0xf``), ``name:[a,b]`` (``op_sel``,
``quad_perm``), ``name:WORD`` (``dst_sel:WORD_1``) and ``offset:swizzle(...)`` (-> its int).
Legacy MFMA spellings are mapped to table mnemonics. Objdump's ``// addr: bytes`` comments and
``<symbol>:`` lines are dropped.
"""
from __future__ import annotations

import re

from .errors import AsmParseError, OperandError, UnknownInstruction
from .instr import Instr
from .operands import SPECIAL_WIDTH, Imm, Label, Operand, Reg, Special
from .tables import canonical_name, get_spec, spec_for
from .waitcnt_enc import parse_waitcnt

ENCODINGS = ("e32", "e64", "dpp", "sdwa")
BARE_MODS = frozenset({"offen", "idxen", "lds", "sc0", "sc1", "nt", "glc", "slc", "clamp", "gds", "tfe",
                       "row_mirror", "row_half_mirror", "high"})
# HW register ids of gfx9 for hwreg(...) (LLVM AMDGPU asm syntax; ISA guide S_GETREG table)
HWREG_IDS = {"HW_REG_MODE": 1, "HW_REG_STATUS": 2, "HW_REG_TRAPSTS": 3, "HW_REG_HW_ID": 4,
             "HW_REG_GPR_ALLOC": 5, "HW_REG_LDS_ALLOC": 6, "HW_REG_IB_STS": 7, "HW_REG_XCC_ID": 20}

_REG = re.compile(r"([sva])(?:(\d+)|\[(\d+):(\d+)\]|\[(\d+)\])$")
_INT = re.compile(r"-?(0x[0-9a-fA-F]+|\d+)$")
_FLOAT = re.compile(r"-?\d+\.\d*(e[-+]?\d+)?$")
_HEADER = re.compile(r"^([0-9a-fA-F]+ <[^>]*>:|Disassembly of section .*|.*:\s+file format .*)$")
_LABEL = re.compile(r"^([A-Za-z_.$][\w.$]*):(?!\S)\s*(.*)$")


def _split_top(text: str, sep: str | None) -> list[str]:
    """Split at ``sep`` (None = whitespace) outside (), [] and ""; empty pieces dropped."""
    parts, depth, cur, quote = [], 0, [], False
    for ch in text:
        if ch == '"':
            quote = not quote
        elif not quote and ch in "([":
            depth += 1
        elif not quote and ch in ")]":
            depth -= 1
        is_sep = (ch.isspace() if sep is None else ch == sep) and depth == 0 and not quote
        if is_sep:
            parts.append("".join(cur))
            cur = []
        else:
            cur.append(ch)
    parts.append("".join(cur))
    return [p.strip() for p in parts if p.strip()]


def _strip_comment(line: str) -> str:
    for marker in ("//", ";", "#"):
        pos = line.find(marker)
        if pos >= 0:
            line = line[:pos]
    return line.strip()


def parse_int(text: str) -> int:
    t = text.strip()
    if not _INT.match(t):
        raise AsmParseError(f"expected an integer, got {text!r}")
    return int(t, 0)


def swizzle_offset(text: str) -> int:
    """The ds_swizzle offset of ``swizzle(MODE,...)`` (LLVM syntax; CDNA3 ISA guide DS_SWIZZLE_B32)."""
    m = re.fullmatch(r"swizzle\((\w+)\s*,?(.*)\)", text.strip())
    if not m:
        raise AsmParseError(f"cannot read swizzle macro {text!r}")
    mode, args = m.group(1), [a.strip() for a in m.group(2).split(",") if a.strip()]
    if mode == "QUAD_PERM" and len(args) == 4:
        return 0x8000 | sum((parse_int(a) & 3) << (2 * i) for i, a in enumerate(args))
    and_mask, or_mask, xor_mask = 0x1F, 0, 0
    if mode == "BITMASK_PERM" and len(args) == 1 and len(args[0].strip('"')) == 5:
        and_mask = 0
        for i, ch in enumerate(args[0].strip('"')):
            bit = 1 << (4 - i)
            if ch in "pi":
                and_mask |= bit
            if ch == "1":
                or_mask |= bit
            if ch == "i":
                xor_mask |= bit
            if ch not in "01pi":
                raise AsmParseError(f"bad BITMASK_PERM character {ch!r} in {text!r}")
    elif mode == "SWAP" and len(args) == 1:
        xor_mask = parse_int(args[0])
    elif mode == "REVERSE" and len(args) == 1:
        xor_mask = parse_int(args[0]) - 1
    elif mode == "BROADCAST" and len(args) == 2:
        and_mask = 0x1F & ~(parse_int(args[0]) - 1)
        or_mask = parse_int(args[1])
    else:
        raise AsmParseError(f"unsupported swizzle macro {text!r}")
    return and_mask | (or_mask << 5) | (xor_mask << 10)


def hwreg_imm(text: str) -> int:
    """simm16 of ``hwreg(NAME[, offset, size])``: id | offset << 6 | (size - 1) << 11."""
    m = re.fullmatch(r"hwreg\((.*)\)", text.strip())
    args = [a.strip() for a in m.group(1).split(",")] if m else []
    if not args or len(args) not in (1, 3):
        raise AsmParseError(f"cannot read {text!r}: expected hwreg(NAME) or hwreg(NAME, offset, size)")
    reg = HWREG_IDS.get(args[0])
    if reg is None:
        if not _INT.match(args[0]):
            raise AsmParseError(f"unknown hardware register {args[0]!r}; known: {', '.join(HWREG_IDS)}")
        reg = int(args[0], 0)
    offset, size = (parse_int(args[1]), parse_int(args[2])) if len(args) == 3 else (0, 32)
    if not (0 <= reg < 64 and 0 <= offset < 32 and 1 <= size <= 32):
        raise AsmParseError(f"{text!r} is out of range (id < 64, offset < 32, size 1..32)")
    return reg | offset << 6 | (size - 1) << 11


def parse_operand(text: str) -> tuple[Operand, tuple[str, ...]]:
    """One operand and the source modifiers around it (subset of 'neg', 'abs', 'sext', 'lit')."""
    t = text.strip()
    mods: list[str] = []
    while True:
        if t.startswith("-") and not _INT.match(t) and not _FLOAT.match(t):
            mods.append("neg")
            t = t[1:].strip()
        elif t.startswith("|") and t.endswith("|") and len(t) > 2:
            mods.append("abs")
            t = t[1:-1].strip()
        elif (m := re.fullmatch(r"(neg|abs|sext|lit)\((.*)\)", t)):
            mods.append(m.group(1))
            t = m.group(2).strip()
        else:
            break
    try:
        if (m := _REG.match(t)):
            f = m.group(1)
            if m.group(2) is not None:
                return Reg(f, int(m.group(2))), tuple(mods)
            lo, hi = (int(m.group(3)), int(m.group(4))) if m.group(3) is not None else (int(m.group(5)),) * 2
            if hi < lo:
                raise AsmParseError(f"register range {text!r} ends before it starts")
            return Reg(f, lo, hi - lo + 1), tuple(mods)
        if t in SPECIAL_WIDTH:
            return Special(t), tuple(mods)
        if _INT.match(t):
            return Imm(int(t, 0)), tuple(mods)
        if _FLOAT.match(t):
            return Imm(float(t)), tuple(mods)
        if t.startswith("hwreg("):
            return Imm(hwreg_imm(t)), tuple(mods)
    except OperandError as e:
        raise AsmParseError(f"bad operand {text!r}: {e}") from e
    if re.fullmatch(r"[A-Za-z_.$][\w.$]*", t) and not mods:
        return Label(t), ()
    raise AsmParseError(f"cannot read operand {text!r}")


def _mod_value(name: str, text: str):
    if text.startswith("[") and text.endswith("]"):
        return tuple(parse_int(x) for x in text[1:-1].split(","))
    if name == "offset" and text.startswith("swizzle("):
        return swizzle_offset(text)
    if _INT.match(text):
        return int(text, 0)
    return text


def _is_mod(tok: str) -> bool:
    return tok in BARE_MODS or bool(re.match(r"[a-z_][a-z_0-9]*:(?!\d+\])", tok)) and not _REG.match(tok)


def parse_line(text: str, arch: str | None = None) -> Instr | None:
    """One instruction, or None for a line without one. With ``arch``, the mnemonic must be in
    that arch's table (``isa.errors.UnknownInstruction`` otherwise) and the operand count must match
    its spec (``AsmParseError``)."""
    line = _strip_comment(text)
    if not line or _HEADER.match(line):
        return None
    if (m := _LABEL.match(line)):
        line = m.group(2).strip()
    if not line or line.startswith("."):
        return None
    head, _, rest = line.partition(" ")
    mnemonic, encoding = head.lower(), ""
    for enc in ENCODINGS:
        if mnemonic.endswith("_" + enc):
            mnemonic, encoding = mnemonic[: -len(enc) - 1], enc
            break
    mnemonic = canonical_name(mnemonic)
    if arch is not None:
        get_spec(arch, mnemonic)
    rest = rest.strip()
    if mnemonic == "s_waitcnt":
        if not rest:
            raise AsmParseError(f"{text.strip()!r}: s_waitcnt needs an operand")
        return Instr(mnemonic, (Imm(parse_waitcnt(rest)),), (), encoding)
    operands: list[Operand] = []
    src_mods: dict[str, list[int]] = {}
    mods: list[tuple[str, object]] = []
    pieces = _split_top(rest, ",") if rest else []
    for pi, piece in enumerate(pieces):
        toks = _split_top(piece, None)
        # an operand may contain spaces only inside () or ||: rejoin "| v1 |" style tokens
        first, extra = (toks[0], toks[1:]) if toks else ("", [])
        if pi < len(pieces) - 1 and extra:
            raise AsmParseError(f"unexpected {' '.join(extra)!r} after operand {first!r} in {text.strip()!r}")
        if pi == len(pieces) - 1 and _is_mod(first) and not operands and len(pieces) == 1:
            extra = toks
        else:
            try:
                op, om = parse_operand(first)
            except AsmParseError as e:
                raise AsmParseError(f"{e} in {text.strip()!r}") from e
            for name in om:
                src_mods.setdefault(name, []).append(len(operands))
            operands.append(op)
        for tok in extra:
            if not _is_mod(tok):
                raise AsmParseError(f"cannot read modifier {tok!r} in {text.strip()!r}")
            name, sep, val = tok.partition(":")
            mods.append((name, _mod_value(name, val) if sep else True))
    for name in ("neg", "abs", "sext", "lit"):
        if name in src_mods:
            mods.append((name, tuple(src_mods[name])))
    instr = Instr(mnemonic, tuple(operands), tuple(mods), encoding)
    if arch is not None:
        _check_operand_count(arch, instr, text)
    return instr


def _check_operand_count(arch: str, instr: Instr, text: str) -> None:
    spec = spec_for(arch, instr)
    if len(instr.operands) != len(spec.operands):
        names = ", ".join(o.name for o in spec.operands) or "none"
        raise AsmParseError(f"{text.strip()!r}: {instr.op} takes {len(spec.operands)} operands ({names}) "
                            f"on {arch}, got {len(instr.operands)}")


def parse_program(text: str, arch: str | None = None) -> tuple[list[Instr], dict[str, int]]:
    """All instructions of a text and its labels (name -> index of the next instruction)."""
    instrs: list[Instr] = []
    labels: dict[str, int] = {}
    for lineno, raw in enumerate(text.splitlines(), 1):
        line = _strip_comment(raw)
        if (m := _LABEL.match(line)) and not _HEADER.match(line):
            if m.group(1) in labels:
                raise AsmParseError(f"line {lineno}: label {m.group(1)!r} defined twice")
            labels[m.group(1)] = len(instrs)
        try:
            ins = parse_line(raw, arch)
        except (AsmParseError, UnknownInstruction) as e:
            raise type(e)(f"line {lineno}: {e}") from e
        if ins is not None:
            instrs.append(ins)
    return instrs, labels
