"""Fuzzing and the mutation proof of the extend kind and of varlen prefill (issue 17): random
ExtendConfigs (dense and paged prefixes, GQA, ragged chunks drawn per emulator seed) and random
varlen AttentionConfigs x random legal (``fuzz`` recipe) schedules must match the NumPy reference
on the emulator; an extend reproducer round-trips through ``asmgen check`` and ``--replay``;
shrinking keeps the failure; ``asmgen fuzz extend --mutate`` and the varlen attention proof
kernel kill every sampled correctness mutant as predicted."""
from __future__ import annotations

import json
import os
import random
import shlex

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from asmgen.cli import main
from asmgen.fuzz import cases
from asmgen.fuzz.cases import Outcome, load_reproducer, run_case, save_reproducer, shrink
from asmgen.fuzz.mutate import CORRECTNESS_CLASSES, Program, all_sites, kernel_waves, run_mutant
from asmgen.fuzz.mutate_campaign import build_proof_kernel
from asmgen.fuzz.runner import campaign
from asmgen.fuzz.strategies import FuzzCase, fuzz_cases, seeds
from asmgen.kinds.attention.fuzz import VARLEN_FP8_PROOF, VARLEN_PROOF, attention_configs
from asmgen.kinds.attention.reference import ragged_lengths
from asmgen.kinds.extend.config import ExtendConfig
from asmgen.kinds.extend.fuzz import PROOF_KERNELS as EXTEND_PROOF

PROFILE = settings.get_profile(os.environ.get("ASMGEN_FUZZ_PROFILE", "ci"))


@settings(PROFILE, max_examples=max(PROFILE.max_examples, 4))
@given(case=fuzz_cases(small=True, kind="extend"))
def test_random_extend_config_and_schedule_is_correct_on_emulator(case):
    assert case.kind == "extend" and case.config.context_len <= 160
    out = run_case(case)
    assert not out.failed, (f"{out.kind} for {case.describe()} (config {case.config.to_dict()}): "
                            f"{out.message[:1500]}")
    assert out.kind in ("pass", "refused:RegisterBudgetError"), f"{out.kind}: {out.message}"


@settings(PROFILE, max_examples=max(PROFILE.max_examples, 4))
@given(cfg=attention_configs(small=True).filter(lambda c: c.varlen), sched=seeds(), emu=seeds())
def test_random_varlen_config_and_schedule_is_correct_on_emulator(cfg, sched, emu):
    out = run_case(FuzzCase(cfg, sched, emu))
    assert not out.failed, f"{out.kind} for {cfg.to_dict()}: {out.message[:1500]}"
    assert out.kind in ("pass", "refused:RegisterBudgetError"), f"{out.kind}: {out.message}"


def test_the_strategies_draw_the_features():
    """Over 300 drawn configs (the derandomized sample of 200 held no multi-wave varlen batch
    once the attention strategy drew head_dim 256 too): varlen attention batches of several
    sequences, causal and not, multi-wave, fp8; extend dense and paged (16 and 64), GQA,
    several sequences, fp8 caches with per-tensor and per-token scales; and the ragged lengths
    hold empty and length-1 sequences."""
    got = []

    @settings(PROFILE, max_examples=300)
    @given(a=attention_configs(small=True), e=st.data())
    def draw(a, e):
        got.append((a, e.draw(fuzz_cases(small=True, kind="extend")).config))
    draw()
    var = [a for a, _ in got if a.varlen]
    ext = [e for _, e in got]
    assert any(a.batch > 1 for a in var) and {a.causal for a in var} == {False, True}
    assert any(a.waves > 1 for a in var)
    assert {e.paged for e in ext} == {False, True} and any(e.kv_heads < e.heads for e in ext)
    assert {16, 64} <= {e.page_size for e in ext if e.paged}
    assert any(e.batch > 1 for e in ext)
    assert {e.kv_scale for e in ext if e.kv_fp8} == {"tensor", "token"}
    assert {e.paged for e in ext if e.token_scales} == {False, True}
    assert any(a.fp8 for a in var)                       # fp8 varlen prefill
    import numpy as np
    lens = [n for s in range(20) for n in ragged_lengths(
        var[0].__class__(batch=4, seqlen_q=50, seqlen_k=70, varlen=True),
        np.random.default_rng(s))[0]]
    assert 0 in lens and 1 in lens


def test_extend_reproducer_round_trips(tmp_path, capsys):
    cfg = ExtendConfig(batch=3, heads=4, kv_heads=2, seqlen_q=20, head_dim=64, max_context=96,
                       context_len=70, paged=True, page_size=16, arch="gfx950")
    case = FuzzCase(cfg, 5, 2)
    out = run_case(case)
    assert out.kind == "pass", out.message
    path = save_reproducer(tmp_path, 1, case, out)
    data = json.loads(path.read_text())
    assert data["kind"] == "extend" and data["config"]["kind"] == "extend"
    assert load_reproducer(path) == case
    argv = shlex.split(data["check_command"])
    assert argv[0] == "asmgen" and main(argv[1:]) == 0
    assert "OK" in capsys.readouterr().out
    assert main(["fuzz", "extend", "--replay", str(path)]) == 0


def test_extend_shrink_keeps_the_failure_and_shrinks(monkeypatch):
    """A fake failure (paged with a context over 64) shrinks to the smallest such config."""
    def fake_run(case):
        c = case.config
        return Outcome("Mismatch" if c.paged and c.context_len > 64 else "pass", "fake")
    monkeypatch.setattr(cases, "run_case", fake_run)
    big = FuzzCase(ExtendConfig(batch=3, heads=8, kv_heads=2, seqlen_q=50, head_dim=128,
                                max_context=320, context_len=300, paged=True, page_size=64,
                                arch="gfx950"), 1, 2)
    small, out = shrink(big, "Mismatch", max_attempts=300)
    c = small.config
    assert out is not None and out.kind == "Mismatch"
    assert c.paged and 64 < c.context_len < 300
    assert (c.batch, c.heads, c.head_dim, c.arch) == (1, 1, 64, "gfx942"), c
    assert c.seqlen_q == 1


def test_extend_campaign_counts_cases(tmp_path):
    s = campaign("extend", budget=None, examples=2, seed=3, outdir=tmp_path,
                 progress_stream=None)
    assert s.cases == 2 and s.failed == 0 and s.kind == "extend"


def test_extend_mutation_proof_kills_every_correctness_mutant(tmp_path):
    # two proof kernels: since d598bc9 the first alone has no s_nop left (the softmax fills its
    # wait states), so no shorten_nop site
    rc = main(["fuzz", "extend", "--mutate", "--kernels", "2", "--examples", "2", "--seed", "3",
               "-o", str(tmp_path)])
    rows = json.loads((tmp_path / "mutations.json").read_text())
    text = (tmp_path / "mutations.txt").read_text()
    assert rc == 0, text
    classes = {r["class"] for r in rows if r.get("class") != "drop_setprio"}
    assert {"delete_waitcnt", "raise_waitcnt", "shorten_nop", "swap_dependent",
            "reuse_inflight"} <= classes, classes
    assert "attn_extend" in text and "paged16" in text
    assert "verdict: every correctness mutant killed" in text


def _one_mutant_per_class(kern, seed: int = 2):
    """One sampled site per correctness class of ``kern``, each run: (mutant, result) pairs."""
    prog = Program.from_asm(kern.asm, kern.config.target, kern.name)
    sites = all_sites(prog, kernel_waves(kern))
    rng = random.Random(seed)
    tried = []
    for cls in CORRECTNESS_CLASSES:
        for m in rng.sample(sites.get(cls, []), min(1, len(sites.get(cls, [])))):
            tried.append((m, run_mutant(kern, prog, m, seed=3)))
    return tried


@pytest.mark.parametrize("which", (
    "extend_fp8", pytest.param("extend_fp8_token", marks=pytest.mark.slow),
    pytest.param("varlen_fp8", marks=pytest.mark.slow)))
def test_fp8_proof_kernels_kill_every_sampled_correctness_mutant(which):
    """The fp8 proof kernels (extend over an fp8 paged cache, per tensor and per token; fp8
    varlen prefill): one sampled site per correctness class, each killed as predicted."""
    spec = {"extend_fp8": EXTEND_PROOF[3], "extend_fp8_token": EXTEND_PROOF[4],
            "varlen_fp8": VARLEN_FP8_PROOF}[which]
    kern = build_proof_kernel("extend" if which.startswith("extend") else "attention", spec)
    assert kern.config.kv_fp8 if which.startswith("extend") else kern.config.fp8
    tried = _one_mutant_per_class(kern)
    assert len({m.cls for m, _ in tried}) >= 5, [m.cls for m, _ in tried]
    bad = [(m.description, m.expected, r.outcome) for m, r in tried if not r.precise]
    assert not bad, bad


def test_fp8_triangle_body_mutants_are_run_at_an_aligned_size():
    """The causal fp8 proof kernels (dense and varlen) are checked again at an aligned size
    (``check_sizes``), where the triangle body runs: every hoisted V^T ds_read, one of them in
    that body (dead code at the unaligned 40 x 130 keys, where it survived), is killed as
    predicted."""
    from asmgen.kinds.attention.fuzz import SINGLE_WAVE_ATTENTION
    dense = next(s for s in SINGLE_WAVE_ATTENTION if s.get("dtype") == "fp8_e4m3fnuz")
    for spec in (dense, VARLEN_FP8_PROOF):
        kern = build_proof_kernel("attention", spec)
        assert kern.proof_sizes and "loop_kv_tri" in kern.asm
        prog = Program.from_asm(kern.asm, kern.config.target, kern.name)
        hoists = all_sites(prog, kernel_waves(kern)).get("hoist_ds_read", [])
        assert len(hoists) >= 3
        bad = [(m.description, m.expected, r.outcome)
               for m, r in ((m, run_mutant(kern, prog, m, seed=3)) for m in hoists)
               if not r.precise]
        assert not bad, (kern.name, bad)


def test_varlen_mutation_proof_kills_every_correctness_mutant():
    """The varlen proof kernel (last of the attention list): one sampled site per correctness
    class, each killed as predicted (its random inputs are ragged packed batches)."""
    kern = build_proof_kernel("attention", VARLEN_PROOF)
    assert kern.config.varlen
    prog = Program.from_asm(kern.asm, kern.config.target, kern.name)
    sites = all_sites(prog, kernel_waves(kern))
    rng = random.Random(2)
    tried = []
    for cls in CORRECTNESS_CLASSES:
        for m in rng.sample(sites.get(cls, []), min(1, len(sites.get(cls, [])))):
            tried.append((m, run_mutant(kern, prog, m, seed=3)))
    assert len({m.cls for m, _ in tried}) >= 5, [m.cls for m, _ in tried]
    bad = [(m.description, m.expected, r.outcome) for m, r in tried if not r.precise]
    assert not bad, bad
