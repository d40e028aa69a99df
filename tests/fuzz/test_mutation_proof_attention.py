"""The mutation proof on attention kernels (``asmgen fuzz attention --mutate``): sites come from
the kernel's own stream, every correctness mutant that applies is killed with the predicted error,
the CLI exits 0, dropping ``s_setprio`` is neutral (it survives and is reported as neutral), and
the two site rules the attention proof forced (no swap into an extremum, no "neutral" setprio
drop inside a hazard window) hold on hand-written streams."""
from __future__ import annotations

import json

import pytest

from asmgen.cli import main
from asmgen.fuzz.mutate import (
    CORRECTNESS_CLASSES,
    NEUTRAL_CLASSES,
    SURVIVED,
    Mutant,
    Program,
    Report,
    all_sites,
    kernel_kind,
    kernel_waves,
    run_mutant,
)
from asmgen.fuzz.mutate_campaign import build_proof_kernel, proof_kernels
from asmgen.fuzz.mutate_sites import setprio_hazard_sites, sites_setprio, sites_swap
from asmgen.target import target_of

ATTENTION_PROOF_KERNELS = proof_kernels("attention")


@pytest.fixture(scope="module")
def kernel():
    """The first attention proof kernel (the one ``--kernels 1`` runs; several waves when the
    attention config has ``waves``)."""
    return build_proof_kernel("attention", ATTENTION_PROOF_KERNELS[0])


@pytest.fixture(scope="module")
def cli_run(tmp_path_factory, kernel):
    out = tmp_path_factory.mktemp("mut")
    rc = main(["fuzz", "attention", "--mutate", "--kernels", "1", "--examples", "2",
               "--seed", "3", "-o", str(out)])
    rows = json.loads((out / "mutations.json").read_text())
    return rc, rows, (out / "mutations.txt").read_text()


def test_attention_kernel_is_read_as_attention(kernel):
    assert kernel_kind(kernel) == "attention"
    assert kernel_waves(kernel) == kernel.meta["block"][0] // 64 >= 1


def test_sites_come_from_the_stream(kernel):
    """The mutations that make sense in a flash-attention kernel have sites in it: waits on the
    K/V/Q buffer loads and on the cross-lane row reduction, VALU->VALU VCC hazards of the mask,
    loads in flight, dependent VALU pairs of the softmax, and the s_setprio pair."""
    prog = Program.from_asm(kernel.asm, kernel.config.target, kernel.name)
    sites = all_sites(prog, kernel_waves(kernel))
    for cls in ("delete_waitcnt", "raise_waitcnt", "shorten_nop", "swap_dependent",
                "reuse_inflight", "drop_setprio"):
        assert sites[cls], f"no {cls} site in {kernel.name}"
    # the wait after the cross-lane exchange (ds_bpermute on gfx942) is a site
    xlane = [i for i, ins in enumerate(prog.instrs) if ins.op == "ds_bpermute_b32"]
    if xlane:
        assert any(xlane[0] < m.site and "lgkmcnt" in m.description
                   for m in sites["delete_waitcnt"])
    # a barrier site exists exactly when the workgroup has several waves and an s_barrier
    has_barrier = any(ins.op == "s_barrier" for ins in prog.instrs)
    if kernel_waves(kernel) == 1 or not has_barrier:
        assert not sites["delete_barrier"]
    else:
        assert sites["delete_barrier"]


def test_cli_kills_every_applicable_kind_and_exits_0(cli_run, kernel):
    rc, rows, text = cli_run
    assert rc == 0, text
    prog = Program.from_asm(kernel.asm, kernel.config.target, kernel.name)
    applicable = [c for c, ms in all_sites(prog, kernel_waves(kernel)).items()
                  if ms and c in CORRECTNESS_CLASSES]
    assert len(applicable) >= 5, applicable
    for cls in applicable:
        rs = [r for r in rows if r["class"] == cls]
        killed = sum(r["killed"] and r["precise"] for r in rs)
        assert rs and killed == len(rs) > 0, (cls, rs)
        assert f"{cls}" in text and f"{killed}/{len(rs)} killed" in text
    assert "SURVIVOR" not in text and "verdict: every correctness mutant killed" in text


def test_setprio_drop_is_neutral_not_killed(cli_run, kernel):
    """Deliberately neutral: dropping s_setprio changes only issue priority between waves; the
    mutant must survive, and the report must count it as neutral, not as a kill or a failure."""
    _, rows, text = cli_run
    rs = [r for r in rows if r["class"] == "drop_setprio"]
    assert rs and all(r["outcome"] == SURVIVED and not r["killed"] for r in rs), rs
    line = next(ln for ln in text.splitlines() if ln.strip().startswith("drop_setprio"))
    assert "0/" in line and "neutral" in line
    # the same, directly: one neutral mutant in a report of its own
    prog = Program.from_asm(kernel.asm, kernel.config.target, kernel.name)
    m = sites_setprio(prog, kernel_waves(kernel))[0]
    assert m.cls in NEUTRAL_CLASSES and m.expected == ()
    r = run_mutant(kernel, prog, m, seed=0)
    assert r.outcome == SURVIVED, r.message
    rep = Report(results=[r])
    assert not r.killed and rep.ok() and not rep.neutral_kills() and not rep.survivors()


def test_a_killed_neutral_or_a_surviving_correctness_mutant_fails_the_report():
    m_neutral = Mutant("drop_setprio", 0, "delete [0] s_setprio 1", [("del", 0, "")], ())
    m_wait = Mutant("delete_waitcnt", 1, "delete [1] s_waitcnt", [("del", 1, "")],
                    ("PendingReadError",))
    from asmgen.fuzz.mutate import Result
    bad_neutral = Report(results=[Result(m_neutral, "HazardError", "x", "k")])
    assert not bad_neutral.ok() and "NEUTRAL MUTANT KILLED" in bad_neutral.text()
    survivor = Report(results=[Result(m_wait, SURVIVED, "ok", "k")])
    assert not survivor.ok() and "SURVIVOR (finding): delete_waitcnt in k" in survivor.text()
    broken = Report(results=[Result(m_neutral, "asm:ToolchainError", "bad", "k")])
    assert not broken.ok() and not broken.neutral_kills() and not broken.survivors()
    assert "MUTANT DID NOT ASSEMBLE" in broken.text()


def _prog(body: str, arch: str = "gfx942") -> Program:
    lines = ["k:"] + [ln.strip() if ln.strip().endswith(":") else "  " + ln.strip()
                      for ln in body.strip().splitlines()]
    return Program.from_asm("\n".join(lines), target_of(arch), "k")


def test_setprio_inside_a_hazard_window_is_not_offered_as_neutral():
    """s_setprio is an issued instruction, so one wait state (cdna-facts section 3). After an
    8-pass XDL MFMA a VALU read of its D needs 11 states on gfx942: s_setprio (1) + s_nop 9 (10)
    is exactly enough, so dropping that setprio is a hazard, not a neutral edit; the second
    setprio is in no window and stays a neutral site."""
    prog = _prog("""
        v_mfma_f32_32x32x8_f16 v[0:15], v[16:17], v[18:19], v[0:15]
        s_setprio 0
        s_nop 9
        v_add_f32 v20, v0, v1
        s_setprio 1
        s_nop 0
        v_add_f32 v21, v20, v1
    """)
    assert setprio_hazard_sites(prog) == [1]
    assert [m.site for m in sites_setprio(prog, 1)] == [4]


def test_swaps_into_an_extremum_are_no_sites():
    """A stale operand of v_max/s_max changes the result only if it wins (data, not stream): in
    attention the row maximum is the softmax shift, an equivalent mutant there."""
    prog = _prog("""
        s_mov_b32 s0, 4
        v_mov_b32 v1, 0
        loop:
        v_add_f32 v1, v1, v2
        v_mul_f32 v3, v1, v4
        v_max_f32 v5, v3, v6
        v_mul_f32 v7, v5, v4
        s_sub_i32 s1, s1, s2
        s_max_i32 s1, s1, 0
        s_sub_u32 s0, s0, 1
        s_cmp_lg_u32 s0, 0
        s_cbranch_scc1 loop
        s_endpgm
    """)
    descr = [m.description for m in sites_swap(prog, 1)]
    assert any("v_add_f32 v1" in d and "v_mul_f32 v3" in d for d in descr), descr
    assert any("s_sub_u32 s0" in d and "s_cmp_lg_u32" in d for d in descr), descr
    assert not any("max" in d for d in descr), descr


def test_publication_sites_need_a_read_while_the_write_is_pending():
    """Deleting the wait before an s_barrier leaves an LDS-DMA write unpublished (cdna-facts
    section 4). It is a site when an LDS read follows while the write is still pending; when the
    wave's own later wait retires it first (a prefetch buffer read epochs later: the attention
    proof's survivor with 3 K/V buffers), nothing provably reads it and it is no site."""
    head = """
        s_mov_b32 m0, s0
        s_nop 0
        buffer_load_dword v1, s[4:7], 0 offen lds
        s_waitcnt vmcnt(0)
        s_barrier
    """
    read = """
        ds_read_b32 v2, v3
        s_waitcnt lgkmcnt(0)
        s_endpgm
    """
    from asmgen.fuzz.mutate_sites import sites_waitcnt
    dels, _ = sites_waitcnt(_prog(head + read), 2)
    assert [(m.site, m.expected) for m in dels] == [(3, ("LdsRaceError", "PendingReadError"))]
    dels, _ = sites_waitcnt(_prog(head + "s_waitcnt vmcnt(0)\n" + read), 2)
    assert not [m for m in dels if m.site == 3], [m.description for m in dels]


def test_setprio_in_a_hazard_window_is_a_real_hazard_on_the_emulator():
    """The finding behind ``setprio_hazard_sites``: a scheduler may put ``s_setprio`` between an
    MFMA and a VALU read of its result, and the hazard pass counts it as a wait state; dropping it
    is a HazardError. (First seen in the gfx950 fuzz-recipe kernel of seed 12; since the softmax
    rewrite the 2-wave causal attn_basic kernel has such sites.) The test takes the first proof
    kernel that has one, and fails if none does: the site rule would then be untested."""
    for spec in ATTENTION_PROOF_KERNELS:
        kern = build_proof_kernel("attention", spec)
        prog = Program.from_asm(kern.asm, kern.config.target, kern.name)
        sites = setprio_hazard_sites(prog)
        if sites:
            break
    else:
        pytest.fail("no attention proof kernel has an s_setprio inside a hazard window: "
                    "add one (or a hand-written program) so setprio_hazard_sites stays tested")
    i = sites[0]
    assert i not in {m.site for m in sites_setprio(prog, kernel_waves(kern))}
    r = run_mutant(kern, prog, Mutant("drop_setprio", i, f"delete [{i}]", [("del", i, "")], ()))
    assert r.outcome == "HazardError", (r.outcome, r.message)
