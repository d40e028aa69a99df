"""Every opcode of the decoder's tables, with random registers, constants, literals, DPP/SDWA and
modifiers, decoded by us and by llvm-objdump-22; the texts must agree (see decode_llvm_util).

The random words are written as ``.long`` into one .s per arch (one llvm-mc + one llvm-objdump
call). Words LLVM refuses (it prints ``.long``; e.g. a modifier an op does not have) are skipped,
but at most a small share of them.
"""
from __future__ import annotations

import random

import pytest
from decode_llvm_util import assemble, compare, elf_text, have_llvm, objdump

from isa import decode_fields as F
from isa.decode import decode, opcode_table
from isa.decode_vector import is_mai

pytestmark = pytest.mark.skipif(not have_llvm(), reason="LLVM 22 tools not installed")

SPECIAL_1 = (106, 107, 124, 126, 127)
CONSTS = tuple(range(128, 209)) + tuple(range(240, 249))


def _sgpr(rng: random.Random, width: int, src: bool) -> int:
    if width == 1:
        r = rng.random()
        if src and r < 0.3:
            return rng.choice(CONSTS)
        if r < 0.4:
            return rng.choice(SPECIAL_1)
        return rng.randrange(0, 102)
    if width == 2:
        if src and rng.random() < 0.2:
            return rng.choice(CONSTS)
        return rng.choice((106, 126)) if rng.random() < 0.3 else 2 * rng.randrange(0, 51)
    return 4 * rng.randrange(0, (102 - width) // 4 + 1)


def _vgpr(rng: random.Random, width: int) -> int:
    if width == 1:
        return rng.randrange(0, 256)
    return 2 * rng.randrange(0, (256 - width) // 2 + 1)


def _src9(rng: random.Random, file: str, width: int) -> int:
    if file in ("v", "a") and (file == "a" or rng.random() < 0.6):
        return 256 + _vgpr(rng, width)
    return _sgpr(rng, width, src=True)


def _vop(rng, fmt, op, entry, fields, words_extra):
    name = entry["name"]
    for slot in entry["slots"]:
        if slot[0] != "f":
            continue
        _, field, file, width = slot
        if field == "vdst":
            fields["vdst"] = _sgpr(rng, width, False) if file == "s" else _vgpr(rng, width)
        elif field == "sdst":
            fields["sdst"] = _sgpr(rng, width, False)
        elif fmt in ("VOP2", "VOPC") and field == "src1":
            fields["vsrc1"] = _vgpr(rng, width)
        else:
            fields[field] = _src9(rng, file, width)
    if fmt == "VOP3" and not any(s[1] == "sdst" for s in entry["slots"] if s[0] == "f"):
        if rng.random() < 0.3:
            fields["abs"] = rng.randrange(8)
        if rng.random() < 0.3:
            fields["neg"] = rng.randrange(8)
        if rng.random() < 0.2:
            fields["clamp"] = 1
        if rng.random() < 0.2:
            fields["omod"] = rng.randrange(4)
    if fmt == "VOP3P":
        if is_mai(name):
            fields["acc_cd"] = rng.randrange(2)
            fields["acc"] = rng.randrange(4)
            sel_max = 5 if "f8f6f4" in name else 8
            if rng.random() < 0.3:
                fields["cbsz"] = rng.randrange(sel_max)
                fields["blgp"] = rng.randrange(sel_max)
        elif not name.startswith("v_accvgpr"):
            fields["op_sel_hi"] = rng.randrange(4)
            fields["op_sel_hi2"] = rng.randrange(2)
            if rng.random() < 0.3:
                fields["op_sel"] = rng.randrange(8)
                fields["neg_lo"] = rng.randrange(8)
                fields["neg_hi"] = rng.randrange(8)
        else:
            fields["op_sel_hi"], fields["op_sel_hi2"] = 3, 1
    if fmt in ("VOP1", "VOP2", "VOPC") and "src0" in fields and entry["suffix"] == "e32":
        r = rng.random()
        if r < 0.15:
            fields["src0"] = F.SRC_DPP
            ctrl = rng.choice([rng.randrange(256), 0x101 + rng.randrange(15), 0x111 + rng.randrange(15),
                               0x121 + rng.randrange(15), 0x130, 0x134, 0x138, 0x13C, 0x140, 0x141,
                               0x142, 0x143])
            if any(sl[3] == 2 for sl in entry["slots"] if sl[0] == "f"):
                ctrl = 0x150 + rng.randrange(16)  # 64-bit DPP (DP ALU): row_newbcast only
            w0 = next(s[3] for s in entry["slots"] if s[0] == "f" and s[1] == "src0")
            words_extra.append(F.pack("DPP", src0=_vgpr(rng, w0), dpp_ctrl=ctrl,
                                      bound_ctrl=rng.randrange(2), neg0=rng.randrange(2),
                                      abs0=rng.randrange(2), neg1=rng.randrange(2),
                                      abs1=rng.randrange(2), bank_mask=rng.randrange(16),
                                      row_mask=rng.randrange(16)) >> 32)
        elif r < 0.3 and all(s[3] == 1 for s in entry["slots"] if s[0] == "f" and s[1] != "vdst"):
            fields["src0"] = F.SRC_SDWA
            s0 = rng.random() < 0.2
            ext = {"src0": _sgpr(rng, 1, False) if s0 else _vgpr(rng, 1), "s0": int(s0),
                       "src0_sel": rng.randrange(7), "src1_sel": rng.randrange(7),
                       "sext0": rng.randrange(2), "neg0": rng.randrange(2), "abs0": rng.randrange(2),
                       "sext1": rng.randrange(2), "neg1": rng.randrange(2), "abs1": rng.randrange(2)}
            if fmt == "VOPC":
                ext.update(sd=rng.randrange(2), sdst=2 * rng.randrange(0, 51))
            else:
                ext.update(dst_sel=rng.randrange(7), dst_unused=rng.randrange(3),
                           clamp=rng.randrange(2), omod=rng.randrange(4))
            words_extra.append(F.pack("SDWA", **ext) >> 32)
        elif r < 0.4:
            fields["src0"] = 255


def random_instruction(rng: random.Random, key, entry) -> list[int]:
    """The dwords of one random instance of table entry ``key`` = (fmt, op, variant)."""
    fmt, op, variant = key
    fields: dict[str, int] = {}
    extra: list[int] = []
    if fmt in ("VOP1", "VOP2", "VOPC", "VOP3", "VOP3P"):
        _vop(rng, fmt, op, entry, fields, extra)
    else:
        for slot in entry["slots"]:
            if slot[0] != "f":
                continue
            _, field, _file, width = slot
            if fmt.startswith("SOP"):
                fields[field] = _sgpr(rng, width, src=field != "sdst")
                if field != "sdst" and rng.random() < 0.1:
                    fields[field] = 255
            elif field == "sbase":
                fields[field] = (_sgpr(rng, 4, False) if width == 4 else _sgpr(rng, 2, False)) // 2
                if fields[field] >= 51:
                    fields[field] = 0
            elif field == "sdata":
                fields[field] = _sgpr(rng, max(width, 2) if width > 1 else 1, False)
            elif field == "srsrc":
                fields[field] = rng.randrange(0, 25)
            elif field == "soffset":
                fields[field] = _sgpr(rng, 1, src=True)
            elif field == "saddr":
                fields[field] = _sgpr(rng, width, False) if width > 1 else rng.randrange(0, 102)
            else:
                fields[field] = _vgpr(rng, width)
        if fmt in ("SOPP", "SOPK") and any(s[0] in ("i", "i?") for s in entry["slots"]):
            fields["simm16"] = rng.randrange(1 << 16)
        if fmt == "SMEM" and any(s[0] == "i" for s in entry["slots"]):
            mode = rng.randrange(3)
            if mode == 0:
                fields.update(imm=1, offset=rng.randrange(1 << 20))
            elif mode == 1:
                fields.update(imm=0, offset=rng.randrange(0, 102))
            else:
                fields.update(imm=1, soe=1, offset=rng.randrange(1 << 20),
                              soffset=rng.randrange(0, 102))
        if fmt == "DS":
            fields.update(offset0=rng.randrange(256), offset1=rng.randrange(256), acc=rng.randrange(2))
        if fmt == "MUBUF":
            o, i, l_, r = (int(variant[k]) for k in (1, 3, 5, 7))
            fields.update(offen=o, idxen=i, lds=l_, sc0=r, offset=rng.randrange(1 << 12),
                          sc1=rng.randrange(2), nt=rng.randrange(2))
            if not l_:
                fields["acc"] = rng.randrange(2)
        if fmt == "FLAT":
            g, v, o, r = (int(variant[k]) for k in (1, 3, 5, 7))
            fields.update(seg=g, sve=v, sc0=r, sc1=rng.randrange(2), nt=rng.randrange(2),
                          acc=rng.randrange(2),
                          offset=rng.randrange(1 << 12) if g == 0 else rng.randrange(1 << 13))
            if o:
                fields["saddr"] = F.FLAT_SADDR_OFF
    bits = F.pack(fmt, op=op, **fields)
    words = [bits & 0xFFFFFFFF] + ([bits >> 32] if fmt in F.WIDE else []) + extra
    needs_lit = any(s[0] == "lit" for s in entry["slots"]) or 255 in (
        fields.get(f) for f in ("src0", "ssrc0", "ssrc1") if fmt not in F.WIDE)
    if needs_lit and not extra:
        words.append(rng.choice([rng.randrange(1 << 32), rng.randrange(65), 0xFFFFFFF0]))
    return words


@pytest.mark.parametrize("arch", ["gfx942", "gfx950"])
def test_every_opcode_random_fields_match_llvm_objdump(arch):
    rng = random.Random(1234)
    table = opcode_table(arch)
    words: list[int] = []
    for key in sorted(table):
        for _ in range(3):
            words += random_instruction(rng, key, table[key])
    src = ".text\n" + "".join(f".long 0x{w:08x}\n" for w in words)
    obj = assemble(src, arch)
    code = elf_text(obj)
    decoded = decode(code, arch)
    assert sum(d.size for d in decoded) == len(code)
    rows = objdump(obj, arch)
    by_off = {d.offset: d for d in decoded}
    ok_rows, refused = [], 0
    for off, text, ws in rows:
        d = by_off.get(off)
        if d is None:
            continue  # LLVM resynchronising after a word it refused
        if text.startswith(".long") or "Invalid" in text or "<unknown" in text or "/*" in text \
                or len(ws) != len(d.words):
            refused += 1
            continue
        ok_rows.append((off, text, ws))
    mine = [by_off[r[0]] for r in ok_rows]
    bad = compare(mine, ok_rows)
    assert not bad, f"{len(bad)} mismatches of {len(ok_rows)}:\n" + "\n".join(bad[:40])
    assert refused < 0.25 * len(decoded), f"LLVM refused {refused} of {len(decoded)} random words"
    assert len(ok_rows) > 2000
