"""s_waitcnt simm16 encoding (cdna-facts section 4): fields, limits, text, and agreement with llvm-mc."""
from __future__ import annotations

import itertools

import pytest
from llvm_text import assemble

from isa.errors import AsmParseError, OperandError
from isa.waitcnt_enc import Waitcnt, decode, encode, format_waitcnt, parse_waitcnt, waitcnt_imm


def test_known_values_from_the_facts():
    assert waitcnt_imm(vmcnt=0) == 0x0F70
    assert waitcnt_imm(lgkmcnt=0) == 0xC07F
    assert waitcnt_imm(0, 0, 0) == 0
    assert waitcnt_imm() == 0xCF7F
    assert waitcnt_imm(vmcnt=63, lgkmcnt=3) == 0xC37F


def test_every_combination_round_trips():
    seen = set()
    for vm, ex, lg in itertools.product(range(64), range(8), range(16)):
        imm = encode(Waitcnt(vm, ex, lg))
        assert decode(imm) == Waitcnt(vm, ex, lg)
        seen.add(imm)
    assert len(seen) == 64 * 8 * 16


@pytest.mark.parametrize("field,value,limit", [("vmcnt", 64, 63), ("expcnt", 8, 7), ("lgkmcnt", 16, 15),
                                               ("vmcnt", -1, 63)])
def test_out_of_range_names_field_and_limit(field, value, limit):
    with pytest.raises(OperandError, match=rf"{field}\({value}\).*0\.\.{limit}"):
        waitcnt_imm(**{field: value})


def test_decode_rejects_unused_bits_and_wide_values():
    with pytest.raises(OperandError, match="unused bits"):
        decode(0x0080)
    with pytest.raises(OperandError, match="16 bits"):
        decode(0x10000)


def test_text_forms():
    assert format_waitcnt(0x0F70) == "vmcnt(0)"
    assert format_waitcnt(waitcnt_imm(vmcnt=1, lgkmcnt=2)) == "vmcnt(1) lgkmcnt(2)"
    assert format_waitcnt(0xCF7F) == "vmcnt(63) expcnt(7) lgkmcnt(15)"
    assert parse_waitcnt("vmcnt(1) & lgkmcnt(2)") == waitcnt_imm(vmcnt=1, lgkmcnt=2)
    assert parse_waitcnt("expcnt(0), lgkmcnt(0)") == waitcnt_imm(expcnt=0, lgkmcnt=0)
    assert parse_waitcnt("0xf70") == 0x0F70
    with pytest.raises(AsmParseError, match="vmcount"):
        parse_waitcnt("vmcount(1)")
    with pytest.raises(OperandError, match="lgkmcnt"):
        parse_waitcnt("lgkmcnt(16)")


def test_agrees_with_llvm_mc(llvm_mc):
    combos = [(0, 7, 15), (63, 7, 0), (1, 7, 2), (17, 3, 9), (48, 0, 15), (5, 7, 15)]
    texts = [f"s_waitcnt vmcnt({a}) expcnt({b}) lgkmcnt({c})" for a, b, c in combos]
    ours = [f"s_waitcnt {waitcnt_imm(a, b, c)}" for a, b, c in combos]
    printed = [f"s_waitcnt {format_waitcnt(waitcnt_imm(a, b, c))}" for a, b, c in combos]
    encs = [assemble(llvm_mc, "gfx942", x) for x in (texts, ours, printed)]
    assert all(not err for _, err in encs)
    assert encs[0][0] == encs[1][0] == encs[2][0]
    _, err = assemble(llvm_mc, "gfx942", ["s_waitcnt vmcnt(64)", "s_waitcnt lgkmcnt(16)"])
    assert len(err) == 2  # llvm-mc agrees that these are out of range
