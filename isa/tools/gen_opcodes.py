"""Generate isa/data/opcodes_<arch>.json: (format, opcode, variant) -> mnemonic and operand template.

How: for every format we build sample machine words (isa.decode_fields.pack) with each opcode and
distinctive register numbers in each field (vdst = 16, src0 = 32, src1 = 48, src2 = 64, VOP3b
sdst = 0, ...), run them all in one batch through LLVM's own disassembler
(``llvm-mc-22 --disassemble -show-encoding``), and read back from its text which mnemonic each
opcode is and which field each printed operand comes from, with its register file and width
(``v[48:49]`` = field src1, 2 dwords). A 32-bit padding word (``s_nop 0``) follows each sample:
when LLVM swallows it as a literal the op has a mandatory literal (``v_fmaak_f32``). Words LLVM
cannot decode are not opcodes of the arch. Sweeping the opcode space (rather than assembling a
hand-made mnemonic list) gives every opcode LLVM knows, so any LLVM-compiled code object decodes.

Run: ``python -m isa.tools.gen_opcodes [--llvm-mc PATH]`` (writes both arches). The JSON is data
derived from LLVM's output.
"""
from __future__ import annotations

import argparse
import json
import re
import subprocess
from pathlib import Path

from isa.decode_fields import FLAT_SADDR_OFF, WIDE, fmt_of, pack
from isa.decode_vector import is_mai

ARCHES = ("gfx942", "gfx950")
DATA_DIR = Path(__file__).resolve().parent.parent / "data"
PAD = 0xBF800000  # s_nop 0
# Field identified by (file class, first register) in a sample word.
VOP_IDS = {16: "vdst", 32: "src0", 48: "src1", 64: "src2"}
FIELD_IDS = {
    "SOP": {("s", 16): "sdst", ("s", 32): "ssrc0", ("s", 48): "ssrc1"},
    "SMEM": {("s", 16): "sdata", ("s", 32): "sbase"},
    "DS": {("v", 16): "vdst", ("v", 32): "addr", ("v", 48): "data0", ("v", 64): "data1"},
    "MUBUF": {("v", 16): "vdata", ("v", 32): "vaddr", ("s", 16): "srsrc", ("s", 48): "soffset"},
    "FLAT": {("v", 16): "vdst", ("v", 32): "addr", ("v", 48): "data", ("s", 64): "saddr"},
    "VOP": {**{("v", k): f for k, f in VOP_IDS.items()}, **{("s", k): f for k, f in VOP_IDS.items()},
},
}
ID_CLASS = {"SOP1": "SOP", "SOP2": "SOP", "SOPC": "SOP", "SOPK": "SOP", "SOPP": "SOP",
            "SMEM": "SMEM", "DS": "DS", "MUBUF": "MUBUF", "FLAT": "FLAT", "VOP1": "VOP",
            "VOP2": "VOP", "VOPC": "VOP", "VOP3": "VOP", "VOP3P": "VOP"}
OP_BITS = {"SOP2": 7, "SOPK": 5, "SOP1": 8, "SOPC": 7, "SOPP": 7, "SMEM": 8, "VOP1": 8,
           "VOP2": 6, "VOPC": 8, "VOP3": 10, "VOP3P": 7, "DS": 8, "MUBUF": 7, "FLAT": 7}
TAG_ORDER = {"": 0, "v": 0, "vvv": 0, "s": 1, "vss": 1, "svv": 2, "sss": 3, "z": 0, "n": 0,
             "vvvP": 4, "vssP": 5, "svvP": 6, "sssP": 7}
SUFFIXES = ("_e32", "_e64", "_dpp", "_sdwa")
_REG = re.compile(r"^([sva])(\d+)$|^([sva])\[(\d+):(\d+)\]$")
_NUM = re.compile(r"^-?(0x[0-9a-fA-F]+|\d+)$")


def _vsrc(kind: str, reg: int) -> int:
    """9-bit VOP source code of SGPR (kind 's') or VGPR (kind 'v') ``reg``."""
    return reg if kind == "s" else 256 + reg


def _subsets(optional: dict[str, int]):
    """Every subset of the optional fields (absent fields are 0: LLVM requires unused fields
    to be zero, its decoder tables treat them as fixed bits)."""
    names = list(optional)
    for mask in range(1 << len(names)):
        yield {n: optional[n] for i, n in enumerate(names) if mask >> i & 1}


def samples() -> list[tuple[tuple[str, int, str, str], int, int]]:
    """All sample words: ((fmt, op, variant, tag), bits, size in bytes); tag says which sample
    shape (register kinds, which optional fields are set) it is."""
    out = []

    def add(fmt, op, variant, tag, fixed, optional):
        for sub in _subsets(optional):
            bits = pack(fmt, op=op, **fixed, **sub)
            key = (fmt, op, variant, f"{tag}/{len(sub)}")
            out.append((key, bits, 8 if fmt in WIDE else 4))

    for op in range(0x60):  # SOP2 ops 0x60.. are the SOPK prefix
        add("SOP2", op, "", "", {}, {"sdst": 16, "ssrc0": 32, "ssrc1": 48})
    for op in range(29):  # SOPK ops 29..31 are the SOP1/SOPC/SOPP prefixes
        add("SOPK", op, "", "", {}, {"sdst": 16, "simm16": 0x10})
    for op in range(1 << OP_BITS["SOP1"]):
        add("SOP1", op, "", "", {}, {"sdst": 16, "ssrc0": 32})
    for op in range(1 << OP_BITS["SOPC"]):
        add("SOPC", op, "", "", {}, {"ssrc0": 32, "ssrc1": 48})
    for op in range(1 << OP_BITS["SOPP"]):
        add("SOPP", op, "", "z", {"simm16": 0}, {})
        add("SOPP", op, "", "n", {"simm16": 0x10}, {})
    for op in range(1 << OP_BITS["SMEM"]):
        add("SMEM", op, "", "", {}, {"sdata": 16, "sbase": 16, "offset": 0x10, "imm": 1})
    for tag in ("v", "s"):
        for op in range(1 << OP_BITS["VOP1"]):
            add("VOP1", op, "", tag, {}, {"vdst": 16, "src0": _vsrc(tag, 32)})
        for op in range(0x3E):  # VOP2 ops 0x3E/0x3F are the VOPC/VOP1 prefixes
            add("VOP2", op, "", tag, {"vdst": 16, "src0": _vsrc(tag, 32), "vsrc1": 48}, {})
        for op in range(1 << OP_BITS["VOPC"]):
            add("VOPC", op, "", tag, {"src0": _vsrc(tag, 32), "vsrc1": 48}, {})
    for tag in ("vvv", "sss", "vss", "svv"):
        srcs = {f"src{i}": _vsrc(k, 32 + 16 * i) for i, k in enumerate(tag)}
        for op in range(0x380):  # 0x380.. is the VOP3P prefix
            add("VOP3", op, "", tag, {"src0": srcs["src0"]},
                {"vdst": 16, "src1": srcs["src1"], "src2": srcs["src2"]})
        for op in range(1 << OP_BITS["VOP3P"]):
            add("VOP3P", op, "", tag, {"src0": srcs["src0"]},
                {"vdst": 16, "src1": srcs["src1"], "src2": srcs["src2"]})
            # v_accvgpr_read/write need op_sel_hi bits set (LLVM: fixed bits of their encoding)
            add("VOP3P", op, "", tag + "P", {"src0": srcs["src0"], "op_sel_hi": 3, "op_sel_hi2": 1},
                {"vdst": 16, "src1": srcs["src1"], "src2": srcs["src2"]})
    for op in range(1 << OP_BITS["DS"]):
        add("DS", op, "", "", {}, {"vdst": 16, "addr": 32, "data0": 48, "data1": 64, "offset0": 0x10,
                                       "offset1": 0x20})
    for op in range(1 << OP_BITS["MUBUF"]):
        for offen in (0, 1):
            for idxen in (0, 1):
                for lds in (0, 1):
                    for sc0 in (0, 1):
                        opt = {"vdata": 16, "offset": 0x10, "srsrc": 4, "soffset": 48}
                        if offen or idxen:
                            opt["vaddr"] = 32
                        add("MUBUF", op, f"o{offen}i{idxen}l{lds}r{sc0}", "",
                            {"offen": offen, "idxen": idxen, "lds": lds, "sc0": sc0}, opt)
    for op in range(1 << OP_BITS["FLAT"]):
        for seg in (0, 1, 2):
            for sve in (0, 1):
                for off in ((0,) if seg == 0 else (0, 1)):  # flat: saddr field is 0
                    for sc0 in (0, 1):
                        add("FLAT", op, f"g{seg}v{sve}o{off}r{sc0}", "",
                            {"saddr": FLAT_SADDR_OFF if off else (64 if seg else 0), "seg": seg, "sve": sve, "sc0": sc0,
                                 "offset": 0x10}, {"vdst": 16, "addr": 32, "data": 48})
    return out


def _le_bytes(bits: int, size: int) -> bytes:
    return bits.to_bytes(size, "little")


def run_llvm(arch: str, llvm_mc: str, items) -> list[tuple[str, bytes] | None]:
    """Disassemble every sample (each followed by PAD, except SOPP): (text, encoding) or None."""
    lines, pads = [], []
    for key, bits, size in items:
        pad = key[0] != "SOPP"
        raw = _le_bytes(bits, size) + (_le_bytes(PAD, 4) if pad else b"")
        lines.append(",".join(f"0x{b:02x}" for b in raw))
        pads.append(pad)
    out = run_llvm_lines(arch, llvm_mc, lines, [size for _, _, size in items])
    # A rejected 4-byte sample leaves only its padding word (s_nop 0) in its segment.
    return [None if r is None or (pad and r[0] == "s_nop 0") else r for r, pad in zip(out, pads)]


MARKER = "0x77,0x77,0x65,0xb0"  # s_movk_i32 s101, 0x7777: separates the samples' outputs
MARKER_TEXT = "s_movk_i32 s101, 0x7777"
MARKER_BYTES = bytes((0x77, 0x77, 0x65, 0xB0))


def run_llvm_lines(arch: str, llvm_mc: str, lines: list[str], sizes: list[int] | None = None,
                   show_encoding: bool = True) -> list[tuple[str, bytes] | None]:
    """``llvm-mc --disassemble -show-encoding`` of byte lines, one result per line: the first
    instruction LLVM decoded from it (text, re-encoded bytes), or None when it refused the line.

    Results are matched by position (a marker instruction follows every line), not by encoding:
    LLVM re-encodes what it prints, which can differ from the input in don't-care bits (and
    aborts on a few it cannot re-encode, so probes run with ``show_encoding=False``: bytes b"").
    """
    text_in = "".join(f"{line}\n{MARKER}\n" for line in lines)
    args = [llvm_mc, "--disassemble", "-triple=amdgcn-amd-amdhsa", f"-mcpu={arch}"]
    proc = subprocess.run(args + (["-show-encoding"] if show_encoding else []), input=text_in,
                          capture_output=True, text=True, check=False)
    segments: list[list[tuple[str, bytes]]] = [[]]
    for line in proc.stdout.splitlines():
        if not line.strip() or line.lstrip().startswith("."):
            continue
        text, _, enc = line.partition("; encoding: [")
        text = text.strip()
        if text == MARKER_TEXT:
            segments.append([])
            continue
        enc = enc.strip()
        raw = bytes(int(x, 16) for x in enc.rstrip("]").split(",")) if enc.endswith("]") else b""
        segments[-1].append((text, raw))
        if raw[-4:] == MARKER_BYTES:  # the marker was swallowed as a literal: it still separates
            segments.append([])
    if len(segments) != len(lines) + 1:
        raise RuntimeError(f"llvm-mc gave {len(segments) - 1} segments for {len(lines)} lines")
    out: list[tuple[str, bytes] | None] = []
    if not show_encoding:
        return [seg[0] if seg else None for seg in segments[:-1]]
    for i, seg in enumerate(segments[:-1]):
        size = sizes[i] if sizes else 4
        # Refused: nothing decoded, or LLVM skipped the first dword and decoded a later one.
        out.append(seg[0] if seg and len(seg[0][1]) >= size else None)
    return out


def split_operands(rest: str) -> tuple[list[str], list[str]]:
    """Split LLVM operand text into (operands, modifiers) at top-level commas, then spaces."""
    parts, depth, cur = [], 0, ""
    for ch in rest:
        if ch in "([":
            depth += 1
        elif ch in ")]":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append(cur.strip())
            cur = ""
        else:
            cur += ch
    if cur.strip():
        parts.append(cur.strip())
    if not parts:
        return [], []
    words, depth, cur = [], 0, ""
    for ch in parts[-1]:
        if ch in "([":
            depth += 1
        elif ch in ")]":
            depth -= 1
        if ch == " " and depth == 0:
            if cur:
                words.append(cur)
            cur = ""
        else:
            cur += ch
    if cur:
        words.append(cur)
    return parts[:-1] + words[:1], words[1:]


def parse_reg(tok: str) -> tuple[str, int, int] | None:
    """(file, first, count) of a register token like ``v5``, ``s[2:3]``, ``-|v4|``."""
    tok = tok.strip("-|")
    m = _REG.match(tok)
    if not m:
        return None
    if m.group(1):
        return m.group(1), int(m.group(2)), 1
    return m.group(3), int(m.group(4)), int(m.group(5)) - int(m.group(4)) + 1


def template(fmt: str, name: str, operands: list[str]) -> list[list]:
    """Operand slots of one sample's printed operands (see module docstring of isa.decode)."""
    ids = FIELD_IDS[ID_CLASS[fmt]]
    slots: list[list] = []
    if fmt == "SOPP":
        return [["i", "simm16"]] if operands else []
    for pos, tok in enumerate(operands):
        if tok in ("sc0", "sc1", "nt"):
            continue  # "buffer_inv sc0 sc1": cache bits printed where operands would be
        reg = parse_reg(tok)
        if reg is not None:
            file, first, count = reg
            field = ids.get(("s" if file == "s" else "v", first))
            if fmt == "VOP3" and pos == 1 and (file, first) == ("s", 0):
                field = "sdst"  # VOP3b: bits 14:8 (0 in samples) are the carry-out SGPRs
            if field is None:
                raise ValueError(f"{name}: operand {tok} maps to no field of {fmt}")
            slots.append(["f", field, file, count])
        elif tok == "-1.0" or (_NUM.match(tok) and int(tok, 0) & 0xFFFFFFFF == PAD):
            slots.append(["lit"])
        elif fmt == "SOPK" and (_NUM.match(tok) or "(" in tok):
            slots.append(["i", "simm16"])
        elif fmt == "SMEM" and _NUM.match(tok) and pos == 0:
            slots.append(["i", "sdata"])  # s_atc_probe: probe mode in the sdata field
        elif fmt == "SMEM" and _NUM.match(tok):
            slots.append(["i", "smoff"])
        elif re.match(r"^[a-z_]+$", tok):
            slots.append(["x", tok])
        else:
            raise ValueError(f"{name}: cannot classify operand {tok!r} of {fmt}")
    return slots


def build(arch: str, llvm_mc: str) -> dict:
    items = samples()
    found: dict[tuple, dict] = {}
    skipped: list[tuple[tuple, str]] = []
    for (key, bits, size), res in zip(items, run_llvm(arch, llvm_mc, items)):
        if res is None:
            continue
        text, enc = res
        if len(enc) < size or fmt_of(int.from_bytes(enc[:4], "little")) != key[0]:
            continue  # LLVM refused the first dword and decoded a later one
        if "Invalid" in text or "<unknown" in text:
            continue  # LLVM decoded the word but rejects a register class: try another sample
        mnem, _, rest = text.partition(" ")
        operands, mods = split_operands(rest)
        suffix = ""
        for suf in SUFFIXES:
            if mnem.endswith(suf):
                mnem, suffix = mnem[: -len(suf)], suf[1:]
        try:
            slots = template(key[0], mnem, operands)
        except ValueError:
            skipped.append((key, mnem))
            continue  # a sample shape that does not identify its fields; others will
        found[key] = {"name": mnem, "suffix": suffix, "slots": slots, "defmods": mods}
    table: dict[str, dict] = {}
    best: dict[str, tuple] = {}
    sopp_z: dict[str, dict] = {}
    for (fmt, op, variant, tag), entry in found.items():
        k = f"{fmt}:{op}:{variant}"
        if fmt == "SOPP":
            if tag.startswith("z"):
                sopp_z[k] = entry
            continue
        kinds, nset = tag.split("/")
        # Prefer the sample printing most operands, then VGPR sources, then most fields set.
        score = (len(entry["slots"]), -TAG_ORDER[kinds], int(nset))
        if k not in best or score > best[k]:
            best[k], table[k] = score, entry
    for (fmt, op, variant, tag), entry in found.items():
        k = f"{fmt}:{op}:{variant}"
        if fmt == "SOPP" and tag.startswith("n"):
            table[k] = dict(sopp_z.get(k, entry))
            if entry["slots"] and not sopp_z.get(k, {}).get("slots"):
                table[k]["slots"] = [["i?", "simm16"]]  # printed only when non-zero (s_endpgm)
        elif fmt == "SOPP" and k not in table:
            table[k] = entry
    _operand_probes(arch, llvm_mc, table)
    version = subprocess.run([llvm_mc, "--version"], capture_output=True, text=True, check=True).stdout
    vline = next((ln.strip() for ln in version.splitlines() if "version" in ln), "")
    have = {(f, o, v) for f, o, v, _ in found}
    lost = sorted({(f, o, name) for (f, o, v, _), name in skipped if (f, o, v) not in have})
    for f, o, name in lost:
        print(f"{arch}: {f} opcode {o} ({name}): no sample LLVM prints in a shape we can map")
    return {"arch": arch, "generated_by": "isa/tools/gen_opcodes.py", "llvm": vline,
            "ops": dict(sorted(table.items()))}


def _probe(arch: str, llvm_mc: str, probes: list[tuple[str, bytes]]) -> dict[str, str]:
    """Disassemble probe words (key, bytes); key -> LLVM's text for the words LLVM decodes
    (the first probe of a key that decodes wins)."""
    lines = [",".join(f"0x{b:02x}" for b in raw) for _, raw in probes]
    out: dict[str, str] = {}
    for (key, raw), res in zip(probes, run_llvm_lines(arch, llvm_mc, lines, show_encoding=False)):
        if res is not None and key not in out:
            out[key] = res[0]
    return out


def _std_fields(fmt: str, entry: dict) -> dict[str, int]:
    """The sample register values of the fields an entry prints (as in samples())."""
    vals = {}
    for slot in entry["slots"]:
        if slot[0] != "f":
            continue
        field = slot[1]
        if fmt in ("VOP2", "VOPC") and field == "src1":
            vals["vsrc1"] = 48
        elif field == "vdst":
            vals["vdst"] = 16
        elif field in ("src0", "src1", "src2"):
            vals[field] = _vsrc("s" if slot[2] == "s" else "v", 32 + 16 * int(field[-1]))
    return vals


def _operand_tokens(text: str) -> list[str]:
    return split_operands(text.partition(" ")[2])[0]


def _src_tokens(entry: dict, text: str) -> dict[int, str]:
    """Printed token of each source (index 0..2) of an entry, by template position."""
    toks = _operand_tokens(text)
    pos = [(int(s[1][-1]), i) for i, s in enumerate(entry["slots"])
           if s[0] == "f" and s[1] in ("src0", "src1", "src2")]
    return {k: toks[i] for k, i in pos if i < len(toks)}


F16_CONST = {240: "0x3800", 241: "0xb800", 242: "0x3c00", 243: "0xbc00", 244: "0x4000",
             245: "0xc000", 246: "0x4400", 247: "0xc400", 248: "0x3118"}


def _operand_probes(arch: str, llvm_mc: str, table: dict) -> None:
    """Ask LLVM how it prints each op's sources, and record it in the entries:

    - ``lit16``: VOP1/VOP2/VOPC src0 literal 0x12345678 prints as 0x5678 (16-bit operand);
    - ``f16const``: sources where inline 1.0 prints as 0x3c00 (16-bit integer operands take
      inline float constants as f16 bit patterns);
    - ``abs``/``neg``: sources (0..2) that print VOP3 abs/neg bits (LLVM has no source modifiers
      on e.g. integer operands: it drops or refuses those bits); ``dpp_abs``/``dpp_neg``/
      ``sdwa_abs``/``sdwa_neg``/``sdwa_sext`` likewise for DPP and SDWA words;
    - ``mix``: VOP3P op whose neg_hi prints as abs (v_fma_mix*);
    - ``hi_default``: VOP3P op_sel_hi LLVM leaves unprinted ("ones", "zeros", "never").
    """
    probes: list[tuple[str, bytes]] = []
    for k, entry in table.items():
        fmt, op, _ = k.split(":")
        if fmt in ("VOP1", "VOP2", "VOPC", "VOP3", "VOP3P"):
            probes += _probes_of(k, fmt, int(op), entry)
    texts = _probe(arch, llvm_mc, probes)
    for key, text in texts.items():
        k, kind = key.split("|")
        entry = table[k]
        if not text.startswith(entry["name"]):
            continue  # LLVM refused the probe and decoded a later dword instead
        toks = _src_tokens(entry, text)
        if kind == "lit":
            if "0x5678" in toks.values():
                entry["lit16"] = True
            continue
        if kind in ("neghi", "hi0", "hi1"):
            if kind == "neghi" and any("|" in t for t in toks.values()):
                entry["mix"] = True
            elif kind != "neghi":
                entry.setdefault("_hi", {})[kind] = "op_sel_hi" in text
            continue
        # Per-source probes: kind = <what><source index>, e.g. "abs1", "dpp_neg0", "c2".
        what, i = kind[:-1], int(kind[-1])
        mark = {"c": F16_CONST[242]}.get(what) or MARKS[what.split("_")[-1]]
        if (mark in toks.get(i, "")) if what != "c" else toks.get(i) == mark:
            key_name = "f16const" if what == "c" else what
            entry.setdefault(key_name, []).append(i)
    for entry in table.values():
        hi = entry.pop("_hi", None)
        if hi is None:
            continue
        if hi.get("hi0") is False and hi.get("hi1") is False:
            entry["hi_default"] = "never"
        elif hi.get("hi0"):
            entry["hi_default"] = "ones"
        elif hi.get("hi1"):
            entry["hi_default"] = "zeros"


MARKS = {"abs": "|", "neg": "-", "sext": "sext("}


def _probes_of(k: str, fmt: str, op: int, entry: dict) -> list[tuple[str, bytes]]:
    """Probe words of one VALU entry (see _operand_probes), each with the key ``k|kind``."""
    out = []
    std = _std_fields(fmt, entry)
    nsrc = sum(1 for sl in entry["slots"] if sl[0] == "f" and sl[1].startswith("src"))
    srcs = [f for f in ("src0", "src1", "src2") if f in std]

    def add(kind, f, extra=None):
        bits = pack(f, op=op, **{**std, **(extra or {})})
        out.append((f"{k}|{kind}", bits.to_bytes(8 if f in WIDE else 4, "little")))

    if "src0" in std and fmt not in WIDE and entry["suffix"] == "e32":
        out.append((f"{k}|lit", pack(fmt, op=op, **{**std, "src0": 255}).to_bytes(4, "little")
                    + (0x12345678).to_bytes(4, "little")))
        add("c0", fmt, {"src0": 242})
        for i in range(min(nsrc, 2)):
            for name in ("neg", "abs"):
                dpp = pack("DPP", src0=32, dpp_ctrl=0xE4, bank_mask=15, row_mask=15,
                           **{f"{name}{i}": 1}) >> 32
                out.append((f"{k}|dpp_{name}{i}", pack(fmt, op=op, **{**std, "src0": 250})
                            .to_bytes(4, "little") + dpp.to_bytes(4, "little")))
            for name in ("neg", "abs", "sext"):
                sd = dict(src0=32, src0_sel=6, **{f"{name}{i}": 1})
                if nsrc >= 2:
                    sd["src1_sel"] = 6
                if fmt != "VOPC":
                    sd.update(dst_sel=6, dst_unused=2)
                sdwa = pack("SDWA", **sd) >> 32
                out.append((f"{k}|sdwa_{name}{i}", pack(fmt, op=op, **{**std, "src0": 249})
                            .to_bytes(4, "little") + sdwa.to_bytes(4, "little")))
    if fmt in ("VOP3", "VOP3P") and srcs:
        for i, f in enumerate(srcs):
            add(f"c{i}", fmt, {f: 242})
        vop3b = any(sl[0] == "f" and sl[1] == "sdst" for sl in entry["slots"])
        if fmt == "VOP3":
            for i in range(len(srcs)):
                add(f"neg{i}", fmt, {"neg": 1 << i})
                if not vop3b:
                    add(f"abs{i}", fmt, {"abs": 1 << i})
        elif not is_mai(entry["name"]):
            mask = (1 << len(srcs)) - 1
            hi = {"op_sel_hi": 3, "op_sel_hi2": 1} if entry["name"].startswith("v_accvgpr") else {}
            add("neghi", fmt, dict(hi, neg_hi=mask))
            add("hi0", fmt)
            for hi2 in (0, 1):
                add("hi1", fmt, {"op_sel_hi": mask & 3, "op_sel_hi2": hi2})
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--llvm-mc", default="llvm-mc-22")
    args = ap.parse_args()
    DATA_DIR.mkdir(parents=True, exist_ok=True)
    for arch in ARCHES:
        data = build(arch, args.llvm_mc)
        path = DATA_DIR / f"opcodes_{arch}.json"
        path.write_text(json.dumps(data, indent=0, separators=(",", ":")) + "\n")
        print(f"{path}: {len(data['ops'])} (format, opcode, variant) entries")


if __name__ == "__main__":
    main()
