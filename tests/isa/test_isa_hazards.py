"""Hazard rules (cdna-facts section 3) on instruction pairs; the same pairs go to LLVM in
test_isa_hazards_llc.py."""
from __future__ import annotations

import pytest
from isa_hazard_cases import CASES, F8F6F4_CASES, PERMLANE_CASES

from isa.asm_parse import parse_line
from isa.hazards import (
    CONSUMED,
    CONSUMERS,
    PRODUCED,
    PRODUCERS,
    Wait,
    by_passes,
    matching_rules,
    mfma_passes,
    required_wait_states,
    rules,
)
from isa.tables import spec_for

ARCHES = ("gfx942", "gfx950")


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_case_wait_states(case):
    prod, cons = parse_line(case.producer), parse_line(case.consumer)
    got = tuple(required_wait_states(arch, prod, cons) for arch in ARCHES)
    assert got == case.expect, [(r.name, n) for r, n in matching_rules("gfx942", prod, cons)]


@pytest.mark.parametrize("case", F8F6F4_CASES + PERMLANE_CASES, ids=[c.name for c in F8F6F4_CASES + PERMLANE_CASES])
def test_gfx950_only_cases(case):
    prod, cons = parse_line(case.producer, "gfx950"), parse_line(case.consumer)
    assert required_wait_states("gfx950", prod, cons) == case.expect[1]


def test_mfma_passes_of_f8f6f4():
    p = parse_line("v_mfma_f32_32x32x64_f8f6f4 v[0:15], v[16:19], v[20:23], v[0:15] cbsz:4 blgp:4")
    assert mfma_passes("gfx950", spec_for("gfx950", p), p) == 8
    p = parse_line("v_mfma_f32_32x32x64_f8f6f4 v[0:15], v[16:23], v[24:27], v[0:15] blgp:4")
    assert mfma_passes("gfx950", spec_for("gfx950", p), p) == 16


def test_unrelated_registers_need_nothing():
    x = parse_line("v_mfma_f32_16x16x16_f16 a[0:3], v[0:1], v[2:3], a[0:3]")
    assert required_wait_states("gfx942", x, parse_line("v_accvgpr_read_b32 v4, a4")) == 0
    assert required_wait_states("gfx942", x, parse_line("s_nop 0")) == 0
    assert required_wait_states("gfx942", parse_line("v_mov_b32 v0, v1"), parse_line("v_add_u32 v2, v0, v1")) == 0


def test_agpr_and_vgpr_do_not_alias():
    x = parse_line("v_mfma_f32_16x16x16_f16 a[0:3], v[0:1], v[2:3], a[0:3]")
    assert required_wait_states("gfx942", x, parse_line("v_add_u32 v2, v1, v0")) == 0


def test_vgpr_dst_mfma_feeds_valu():
    x = parse_line("v_mfma_f32_32x32x8_f16 v[0:15], v[16:17], v[18:19], 0")
    assert required_wait_states("gfx942", x, parse_line("v_cvt_f16_f32 v20, v3")) == 11
    assert required_wait_states("gfx950", x, parse_line("global_store_dword v[30:31], v15, off")) == 12


def test_rules_are_consistent_data():
    for arch in ARCHES:
        rs = rules(arch)
        assert len(rs) >= 25
        assert len({r.name for r in rs}) == len(rs)
        for r in rs:
            assert r.producer in PRODUCERS and r.consumer in CONSUMERS
            assert r.produced in PRODUCED and r.consumed in CONSUMED
            assert r.relation in ("overlap", "same", "overlap_not_same", "always", "same_hwreg")
            assert str(r.wait)


def test_wait_formulas():
    w = Wait(3, 1, (("gfx950", 1),), (("gfx942", 2, 5), ("gfx950", 2, 5)))
    assert [w("gfx942", p) for p in (2, 4, 8, 16)] == [5, 7, 11, 19]
    assert [w("gfx950", p) for p in (2, 4, 8, 16)] == [5, 8, 12, 20]
    t = by_passes(p16=(11, 19), p4=(6, 6))
    assert (t("gfx942", 16), t("gfx950", 16), t("gfx950", 4)) == (11, 19, 6)
    assert "P+3" in str(w)


def test_judge_view_of_sgemm_to_xdl_same_srcc_is_cdna3_case_107():
    n2 = parse_line("v_mfma_f32_4x4x1_16b_f32 a[0:3], v10, v12, a[0:3]")
    x2 = parse_line("v_mfma_f32_4x4x4_16b_f16 a[0:3], v[10:11], v[12:13], a[0:3]")
    for arch in ARCHES:
        assert required_wait_states(arch, n2, x2, "emu") == 0
        assert required_wait_states(arch, n2, x2, "gen") == 2
        assert required_wait_states(arch, n2, n2, "emu") == 2
        assert required_wait_states(arch, x2, x2, "emu") == 2
