"""Fuzzing and the mutation proof over 8-bit GEMMs (issue 15): random fp8/bf8/i8 configs (mixed
fp8 x bf8, fp8/bf8/i32 outputs, every scale mode) x random legal schedules x emulator seeds must
compile and match the reference; every correctness-class mutation of the 8-bit proof kernels is
rejected by the emulator, and the shrinker's moves reach the plain 8-bit config."""
from __future__ import annotations

import os

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from asmgen.fuzz.cases import run_case
from asmgen.fuzz.mutate import CORRECTNESS_CLASSES, mutate_kernel
from asmgen.fuzz.mutate_campaign import build_proof_kernel, proof_kernels
from asmgen.fuzz.strategies import FuzzCase, seeds
from asmgen.kinds.gemm.config import LAYOUTS, LOWP_DTYPES
from asmgen.kinds.gemm.fuzz import candidates, from_raw, lowp_configs, to_raw

PROFILE = settings.get_profile(os.environ.get("ASMGEN_FUZZ_PROFILE", "ci"))
LOWP_PROOF = [s for s in proof_kernels("gemm") if s.get("dtype") in LOWP_DTYPES]


@settings(PROFILE)
@given(cfg=lowp_configs(small=True), sched=seeds(), emu=seeds())
def test_random_8bit_config_and_schedule_is_correct_on_emulator(cfg, sched, emu):
    case = FuzzCase(cfg, sched, emu)
    out = run_case(case)
    assert not out.failed, (f"{out.kind} for {case.describe()} (config {cfg.to_dict()}): "
                            f"{out.message[:1500]}")


@settings(PROFILE)
@given(cfg=lowp_configs(small=True))
def test_8bit_draws_are_8bit_and_shrink_to_plain_scales_and_nt(cfg):
    assert cfg.in_type.bits == 8 and cfg.layout in LAYOUTS
    raw = to_raw(cfg)
    assert from_raw(raw) == cfg
    cands = list(candidates(raw))
    for key, plain in (("scale_a_mode", "tensor"), ("scale_b_mode", "tensor"), ("dtype_b", None),
                       ("layout", "NT")):
        if raw[key] != plain:
            assert any(c[key] == plain for c in cands), f"no shrink move resets {key}"


def test_the_strategy_reaches_every_8bit_feature():
    """Over a bounded number of draws the strategy produces each 8-bit feature at least once."""
    seen = set()

    @settings(max_examples=150, deadline=None, database=None, derandomize=True)
    @given(cfg=lowp_configs(small=True), ok=st.just(True))
    def collect(cfg, ok):
        seen.add(("dtype", cfg.dtype))
        seen.add(("out", cfg.out_dtype))
        seen.add(("mixed", cfg.dtype_b is not None))
        seen.add(("sa", cfg.scale_a_mode))
        seen.add(("sb", cfg.scale_b_mode))
        seen.add(("layout", cfg.layout))
    collect()
    need = {("dtype", d) for d in LOWP_DTYPES} | {("layout", lay) for lay in LAYOUTS} | {("mixed", True), ("sa", "row"), ("sa", "ptr"),
                                                  ("sb", "col"), ("sb", "ptr"), ("out", "i32"),
                                                  ("out", "fp8_e4m3fnuz"), ("out", "bf8_e5m2")}
    assert need <= seen, f"never drawn: {sorted(need - seen)}"


@pytest.mark.parametrize("spec", LOWP_PROOF,
                         ids=lambda s: f"{s['dtype']}-{s['schedule']}-{s['layout']}")
def test_8bit_proof_kernel_mutations_are_killed(spec):
    assert len(LOWP_PROOF) >= 3 and {s["layout"] for s in LOWP_PROOF} >= {"NT", "TN"}
    kern = build_proof_kernel("gemm", spec)
    report = mutate_kernel(kern, per_class=1, seed=3)
    ran = 0
    for cls in CORRECTNESS_CLASSES:
        for r in report.by_class()[cls]:
            ran += 1
            assert r.killed, f"{kern.name}: {cls} survived: {r.mutant.description}: {r.message}"
    assert ran >= len(CORRECTNESS_CLASSES) - 1, f"only {ran} mutants ran"
