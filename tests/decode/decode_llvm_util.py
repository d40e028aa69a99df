"""Test helpers for the decoder tests: run LLVM 22 tools, read .text of an ELF, and compare our
decoded text with llvm-objdump's after deliberate normalisation.

Normalisations (both sides are brought to one spelling; anything else must match exactly):
- integers compare by value (``0x10`` = ``16``, ``lit(0x10)`` = ``lit(16)``);
- f64 MFMA ``neg:[1,0,1]`` = ``-`` on those sources; ``neg(2)`` (LLVM, negated constant) = ``-2`` (asm_format); 1/(2*pi) printed with 17 digits for
  64-bit operands (``0.15915494309189532``) = ``0.15915494``;
- ``s_waitcnt vmcnt(..)``, ``hwreg(..)``, ``sendmsg(..)``, ``offset:swizzle(..)`` become the raw
  16-bit immediate taken from the instruction word (we print raw immediates);
- a branch's immediate becomes the ``L_0x<target>`` label we print;
- our text is printed by isa.asm_format.format_instr (source modifiers around operands as LLVM
  does: ``-|v2|``, ``sext(v2)``, ``lit(0x0)``), except s_waitcnt, compared by raw immediate;
- modifiers compare as multisets (order-free).
"""
from __future__ import annotations

import re
import shutil
import struct
import subprocess
import tempfile
from pathlib import Path

from isa.asm_format import format_instr
from isa.decode import BRANCH_PREFIXES, DecodedInstr, label_name
from isa.operands import Label
from isa.tools.gen_opcodes import split_operands

LLVM_MC = "llvm-mc-22"
OBJDUMP = "llvm-objdump-22"
CLANG = "clang-22"


def have_llvm() -> bool:
    return all(shutil.which(t) for t in (LLVM_MC, OBJDUMP, CLANG))


def elf_text(data: bytes) -> bytes:
    """The bytes of section .text of a 64-bit little-endian ELF."""
    shoff = struct.unpack_from("<Q", data, 0x28)[0]
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3A)
    secs = [struct.unpack_from("<IIQQQQ", data, shoff + i * shentsize) for i in range(shnum)]
    stroff = secs[shstrndx][4]
    for name_off, _type, _flags, _addr, off, size in secs:
        end = data.index(b"\0", stroff + name_off)
        if data[stroff + name_off:end] == b".text":
            return data[off:off + size]
    raise ValueError("no .text section")


def assemble(src: str, arch: str) -> bytes:
    with tempfile.TemporaryDirectory() as tmp:
        s, o = Path(tmp) / "t.s", Path(tmp) / "t.o"
        s.write_text(src)
        subprocess.run([LLVM_MC, "-triple=amdgcn-amd-amdhsa", f"-mcpu={arch}", "-filetype=obj",
                        str(s), "-o", str(o)], check=True, capture_output=True, text=True)
        return o.read_bytes()


def compile_cl(src: str, arch: str) -> bytes:
    with tempfile.TemporaryDirectory() as tmp:
        c, o = Path(tmp) / "k.cl", Path(tmp) / "k.o"
        c.write_text(src)
        subprocess.run([CLANG, "-target", "amdgcn-amd-amdhsa", f"-mcpu={arch}", "-nogpulib", "-O3",
                        "-x", "cl", "-c", str(c), "-o", str(o)], check=True, capture_output=True,
                       text=True)
        return o.read_bytes()


def objdump(obj: bytes, arch: str) -> list[tuple[int, str, list[int]]]:
    """(byte offset in .text, instruction text, dwords) per instruction, from llvm-objdump."""
    with tempfile.TemporaryDirectory() as tmp:
        o = Path(tmp) / "k.o"
        o.write_bytes(obj)
        out = subprocess.run([OBJDUMP, "-d", f"--mcpu={arch}", str(o)], check=True,
                             capture_output=True, text=True).stdout
    rows = []
    for line in out.splitlines():
        m = re.match(r"^\s+(\S.*?)\s*// ([0-9A-F]+): ((?:[0-9A-F]{8} ?)+)", line)
        if m:
            rows.append((int(m.group(2), 16), m.group(1).strip(),
                         [int(w, 16) for w in m.group(3).split()]))
    return rows


def _num(tok: str) -> str:
    if tok.startswith("neg(") and tok.endswith(")"):  # LLVM: neg(2) on constants, we: -2
        return "-" + _num(tok[4:-1])
    if tok.lstrip("-") == "0.15915494309189532":  # 1/(2*pi) as LLVM prints it for 64-bit operands
        tok = tok.replace("0.15915494309189532", "0.15915494")
    m = re.fullmatch(r"lit\((.*)\)", tok)
    if m:
        return f"lit({_num(m.group(1))})"
    if re.fullmatch(r"-?(0x[0-9a-fA-F]+|\d+)", tok):
        return str(int(tok, 0))
    return tok


def _norm_mod(tok: str) -> str:
    if ":" in tok and "[" not in tok:
        k, v = tok.split(":", 1)
        return f"{k}:{_num(v)}"
    return tok


RAW_IMM_OPS = ("s_sendmsg", "s_sendmsghalt", "s_getreg_b32", "s_setreg_b32", "s_setreg_imm32_b32")


def normalise(text: str, offset: int, words: list[int] | None) -> tuple[str, list[str], list[str]]:
    """(mnemonic, operands, sorted modifiers) of an instruction's text. ``words`` (the encoding)
    is given for llvm-objdump's text: its symbolic immediates become the raw ones we print."""
    mnem, _, rest = text.partition(" ")
    if mnem == "s_waitcnt":
        return mnem, [str(words[0] & 0xFFFF) if words else _num(rest)], []
    ops, mods = split_operands(rest)
    if words is not None:
        if mnem in RAW_IMM_OPS:
            at = 0 if mnem.startswith("s_setreg") else len(ops) - 1
            ops[at] = str(words[0] & 0xFFFF)
        mods = [f"offset:{words[0] & 0xFFFF}" if m.startswith("offset:swizzle(") else m
                for m in mods]
        sopp_sopk = words[0] >> 23 == 0x17F or (words[0] >> 28 == 0xB
                                                 and words[0] >> 23 not in (0x17D, 0x17E))
        if mnem.startswith(BRANCH_PREFIXES) and ops and sopp_sopk:
            simm = words[0] & 0xFFFF  # objdump prints the immediate or a symbol name
            simm = simm - 0x10000 if simm & 0x8000 else simm
            ops[-1] = label_name(offset + 4 + 4 * simm)
        if "mfma" in mnem:  # f64 MFMA neg:[a,b,c] = our source modifier on A, B, C
            for m in [m for m in mods if m.startswith("neg:[")]:
                mods.remove(m)
                flags = m[5:-1].split(",")
                for i, f in enumerate(flags):
                    if f == "1":
                        ops[1 + i] = "-" + ops[1 + i]
    if mnem == "s_setreg_imm32_b32" and re.fullmatch(r"-\d+", ops[-1]):
        ops[-1] = str(int(ops[-1]) & 0xFFFFFFFF)  # its imm32 prints signed in LLVM
    mods += [o for o in ops if o in ("sc0", "sc1", "nt")]  # "buffer_wbl2 sc1": no operands
    ops = [_num(o) for o in ops if o not in ("sc0", "sc1", "nt")]
    return mnem, ops, sorted(_norm_mod(m) for m in mods)


def ours_text(d: DecodedInstr) -> str:
    """Our instruction as LLVM text (isa.asm_format), s_waitcnt with its raw immediate."""
    if d.instr.op == "s_waitcnt":
        return f"s_waitcnt {d.instr.operands[0]}"
    return format_instr(d.instr)


def reassemble_mismatches(decoded: list[DecodedInstr], arch: str) -> list[str]:
    """Print each decoded instruction (isa.asm_format), assemble the text with llvm-mc and list
    the ones whose encoding differs from the original words (branches skipped: no labels)."""
    keep = [d for d in decoded if not any(isinstance(o, Label) for o in d.instr.operands)]
    text = "\n".join(format_instr(d.instr) for d in keep) + "\n"
    proc = subprocess.run([LLVM_MC, "-triple=amdgcn-amd-amdhsa", f"-mcpu={arch}", "-show-encoding"],
                          input=text, capture_output=True, text=True, check=False)
    errors = [ln for ln in proc.stderr.splitlines() if "error" in ln]
    if errors:
        return errors[:20]
    encs = [ln.split("encoding: [", 1)[1].rstrip("]") for ln in proc.stdout.splitlines()
            if "encoding: [" in ln]
    if len(encs) != len(keep):
        return [f"llvm-mc printed {len(encs)} encodings for {len(keep)} instructions"]
    bad = []
    for d, enc in zip(keep, encs):
        got = bytes(int(x, 16) for x in enc.split(","))
        want = b"".join(w.to_bytes(4, "little") for w in d.words)
        if got != want:
            bad.append(f"0x{d.offset:x}: {format_instr(d.instr)}: {got.hex()} != {want.hex()}")
    return bad


def compare(decoded: list[DecodedInstr], rows) -> list[str]:
    """Mismatches between our decode and llvm-objdump's rows (empty list = all equal)."""
    bad = []
    ours = {d.offset: d for d in decoded}
    if [d.offset for d in decoded] != [r[0] for r in rows]:
        bad.append(f"instruction boundaries differ: ours {[d.offset for d in decoded][:20]}... "
                   f"llvm {[r[0] for r in rows][:20]}...")
    for off, text, words in rows:
        d = ours.get(off)
        if d is None:
            bad.append(f"0x{off:x}: {text}: no decoded instruction here")
            continue
        want = normalise(text, off, words)
        got = normalise(ours_text(d), d.offset, None)
        if want != got:
            bad.append(f"0x{off:x}: llvm {text!r} -> {want}\n          ours {d.instr} -> {got}")
    return bad
