"""Fuzzing and the mutation proof over MX GEMMs on gfx950 (issue 15): random mxfp8/mxfp4 configs
(E8M0 block scales, K tails, every output, staging, fragment buffers, LDS-DMA, swizzle) x random legal
schedules x emulator seeds must compile and match the reference; the GEMM kind's strategy draws
them; the shrink moves keep them MX-legal; every correctness-class mutation of the MX proof
kernels (mxfp4 default loop NT and TN, the latter nibble-transposing both operands, mxfp4 NN
and mxfp8 NT interleave with a K tail) is rejected by the emulator, and so
are the wait mutants aimed at the block-scale loads."""
from __future__ import annotations

import os

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from asmgen.errors import ConfigError
from asmgen.fuzz.cases import PASS, run_case
from asmgen.fuzz.mutate import CORRECTNESS_CLASSES, mutate_kernel
from asmgen.fuzz.mutate_campaign import build_proof_kernel, proof_aim, proof_kernels
from asmgen.fuzz.mutate_sites import AIMED_CLASSES
from asmgen.fuzz.strategies import FuzzCase, seeds
from asmgen.kinds.gemm.config import MX_DTYPES
from asmgen.kinds.gemm.fuzz import (
    candidates,
    from_raw,
    fuzz_arrangement,
    gemm_configs,
    mx_configs,
    to_raw,
)
from asmgen.target import ARCHES, target_of

PROFILE = settings.get_profile(os.environ.get("ASMGEN_FUZZ_PROFILE", "ci"))
MX_PROOF = [s for s in proof_kernels("gemm") if s.get("dtype") in MX_DTYPES]
NO_MX = tuple(a for a in ARCHES if not set(MX_DTYPES) <= set(target_of(a).dtypes()))


@settings(PROFILE)
@given(cfg=mx_configs(small=True), sched=seeds(), emu=seeds())
def test_random_mx_config_and_schedule_is_correct_on_emulator(cfg, sched, emu):
    case = FuzzCase(cfg, sched, emu)
    out = run_case(case)
    assert not out.failed, (f"{out.kind} for {case.describe()} (config {cfg.to_dict()}): "
                            f"{out.message[:1500]}")
    # passed, or refused (a random schedule over the SGPR budget: correct, counted apart)
    if out.kind == PASS:
        assert "v_mfma_scale_f32_" in out.kernel.asm


@settings(PROFILE)
@given(cfg=mx_configs(small=True), sched=seeds())
def test_mx_draws_are_legal_and_shrink_moves_stay_legal(cfg, sched):
    assert cfg.mx and cfg.arrangement == "default"
    assert cfg.k % 32 == 0
    assert cfg.k_tail == (cfg.k % (cfg.tile[2] * cfg.staging) != 0)
    arr = fuzz_arrangement(cfg, sched)
    assert arr == "default" or (cfg.prefetch == cfg.staging == 1 and arr in
                                ("interleave", "pingpong"))
    raw = to_raw(cfg)
    assert from_raw(raw) == cfg
    cands = list(candidates(raw))
    ks = [c for c in cands if c["k"] != raw["k"]]
    if cfg.k > 32:
        assert ks, "no shrink move reduces K"
    for c in cands:
        if c["dtype"] in MX_DTYPES:
            assert c["layout"] in (cfg.layout, "NT") and c["arch"] == cfg.arch
            assert c["k"] % 32 == 0, c
    for c in ks + [c for c in cands if c["staging"] != raw["staging"]]:
        shrunk = from_raw(c)          # K and staging moves are always legal (ConfigError fails)
        assert shrunk.mx and (shrunk.k < cfg.k or shrunk.staging < cfg.staging)
    if cfg.dtype == "mxfp4":
        assert any(c["dtype"] == "mxfp8" for c in cands)
    assert any(c["dtype"] not in MX_DTYPES for c in cands), "no move leaves MX"


def test_the_strategies_reach_every_mx_feature():
    """Over a bounded number of draws ``mx_configs`` produces each MX feature, and the GEMM
    kind's own strategy (``gemm_configs``) draws both MX dtypes."""
    seen, kind_seen = set(), set()

    @settings(max_examples=120, deadline=None, database=None, derandomize=True)
    @given(cfg=mx_configs(small=True), ok=st.just(True))
    def collect(cfg, ok):
        seen.update({("dtype", cfg.dtype), ("out", cfg.out_dtype), ("mfma", cfg.mfma),
                     ("staging", cfg.staging), ("fb", cfg.frag_buffers > 0),
                     ("dma", cfg.direct_to_lds), ("swz", cfg.lds_swizzle),
                     ("bias", cfg.bias), ("kt", cfg.k // cfg.tile[2] > 1),
                     ("tail", cfg.k_tail), ("layout", cfg.layout),
                     ("split", cfg.prefetch == cfg.staging == 1),
                     ("pingpong", cfg.prefetch == cfg.staging == 1 and
                      cfg.waves[0] * cfg.waves[1] == 8)})

    @settings(max_examples=200, deadline=None, database=None, derandomize=True)
    @given(cfg=gemm_configs(small=True), ok=st.just(True))
    def collect_kind(cfg, ok):
        kind_seen.add(cfg.dtype)
    collect()
    collect_kind()
    need = ({("dtype", d) for d in MX_DTYPES} | {("mfma", (16, 16, 128)), ("mfma", (32, 32, 64)),
            ("staging", 2), ("fb", True), ("dma", True), ("swz", True), ("bias", True),
            ("kt", True), ("tail", True), ("split", True), ("pingpong", True),
            ("layout", "NN"), ("layout", "TN"), ("layout", "TT"),
            ("out", "bf16"), ("out", "fp8_e4m3")})
    assert need <= seen, f"never drawn: {sorted(need - seen, key=str)}"
    assert set(MX_DTYPES) <= kind_seen, f"gemm_configs drew {sorted(kind_seen)}"


def test_no_mx_draw_without_an_mx_arch():
    assert NO_MX, "every arch has the MX types"
    @settings(max_examples=40, deadline=None, database=None, derandomize=True)
    @given(cfg=gemm_configs(small=True, arches=NO_MX))
    def check(cfg):
        assert not cfg.mx
    check()
    with pytest.raises(ConfigError):
        from_raw({**to_raw(_an_mx_config()), "arch": NO_MX[0]})


def _an_mx_config():
    from asmgen.kinds.gemm.config import GemmConfig
    arch = next(a for a in ARCHES if a not in NO_MX)
    return GemmConfig(m=40, n=40, k=128, dtype="mxfp8", arch=arch, layout="NT",
                      tile=(32, 32, 128), waves=(1, 1), mfma=(16, 16, 128))


@pytest.mark.parametrize("spec", MX_PROOF,
                         ids=lambda s: f"{s['dtype']}-{s['layout']}-{s['schedule']}")
def test_mx_proof_kernel_mutations_are_killed(spec):
    """Every correctness class, plus the wait mutants aimed at the block-scale loads (a deleted
    or loosened wait before a scale register's consumer), killed with the predicted error."""
    assert MX_PROOF, "no MX kernel in the GEMM mutation proof"
    assert proof_aim(spec) == ("buffer_load_ubyte",)
    kern = build_proof_kernel("gemm", spec)
    assert kern.config.mx and "v_mfma_scale_f32_" in kern.asm
    report = mutate_kernel(kern, per_class=2, seed=3, aim=proof_aim(spec))
    ran = 0
    for cls in CORRECTNESS_CLASSES:
        rs = report.by_class()[cls]
        assert rs, f"{kern.name}: no {cls} mutant ran"
        for r in rs:
            ran += 1
            assert r.killed and r.precise, \
                f"{kern.name}: {cls} survived: {r.mutant.description}: {r.message}"
    assert ran >= len(CORRECTNESS_CLASSES)
    aimed = {r.mutant.cls for cls in AIMED_CLASSES for r in report.by_class()[cls]
             if "aimed at buffer_load_ubyte" in r.mutant.description}
    # a deleted scale wait everywhere; a loosened one in the split loop. The default loop's
    # prologue issues its scale loads before the staged data, so on the first trip (all the
    # static prediction walks, asmgen.fuzz.predict) its scale waits are looser than needed and
    # a raise by one breaks only later trips: no raise site is predicted there
    want = {"delete_waitcnt"} | ({"raise_waitcnt"} if kern.config.arrangement != "default" else set())
    assert want <= aimed, f"{kern.name}: no mutant aimed at the scale loads in {want - aimed}"


def test_both_mx_dtypes_and_a_split_loop_are_in_the_proof():
    assert {s["dtype"] for s in MX_PROOF} == set(MX_DTYPES)
    # mxfp4's nibble transpose: a proof kernel with both operands MN-contiguous, by ushort loads
    # (not the scale loads' ubyte, which the aimed wait mutants single out)
    fp4_mn = [build_proof_kernel("gemm", s) for s in MX_PROOF
              if s["dtype"] == "mxfp4" and s["layout"] != "NT"]
    assert {k.config.layout for k in fp4_mn} == {"TN", "NN"}
    assert all("v_bfi_b32" in k.asm and "buffer_load_ushort" in k.asm for k in fp4_mn)
    assert any(k.config.arrangement == "interleave" for k in fp4_mn)
    assert any(s["schedule"] == "interleave" and s["k"] % s["tile"][2] for s in MX_PROOF)


def test_aimed_sites_name_a_scale_load_as_the_pending_producer():
    """``aimed_at`` keeps exactly the wait mutants whose predicted violation is a pending
    scale load; a non-MX kernel has none."""
    from asmgen.fuzz.mutate_sites import Program, aimed_at, sites_waitcnt
    from asmgen.fuzz.predict import new_violations
    spec = next(s for s in MX_PROOF if s["dtype"] == "mxfp8")
    kern = build_proof_kernel("gemm", spec)
    prog = Program.from_asm(kern.asm, kern.config.target, kern.name)
    dels, raises = sites_waitcnt(prog, 4)
    aimed = aimed_at(prog, dels + raises, ("buffer_load_ubyte",))
    assert 0 < len(aimed) < len(dels + raises)
    ident = [id(x) for x in prog.instrs]
    for m in aimed:
        new = new_violations(prog.instrs, m.instrs, prog.target, ident, [id(x) for x in m.instrs])
        assert any("buffer_load_ubyte" in v.detail for v in new)
    plain = build_proof_kernel("gemm", proof_kernels("gemm")[0])
    pp = Program.from_asm(plain.asm, plain.config.target, plain.name)
    assert aimed_at(pp, sum(sites_waitcnt(pp, 4), []), ("buffer_load_ubyte",)) == []


def test_a_deleted_wait_that_was_a_hazard_wait_state_predicts_the_hazard():
    """The mxfp4 NN interleave proof kernel's K-tail mask: ``v_cmp_gt_i32_e64 s[..]`` then an
    ``s_waitcnt`` (and an ``s_barrier``) then the ``v_cndmask_b32_e64`` reading that SGPR pair (valu_sgpr_valu needs 2
    wait states, cdna-facts section 3). Deleting the wait removes one of them: the prediction
    is the HazardError the emulator meets first (it was a PendingReadError further on, an
    imprecise kill in ``asmgen fuzz gemm --mutate --seed 1``)."""
    from asmgen.fuzz.mutate import run_mutant
    from asmgen.fuzz.mutate_sites import Program, sites_waitcnt
    spec = next(s for s in MX_PROOF if s["dtype"] == "mxfp4" and s["layout"] == "NN")
    kern = build_proof_kernel("gemm", spec)
    prog = Program.from_asm(kern.asm, kern.config.target, kern.name)
    ins = prog.instrs
    at = [i for i in range(1, len(ins) - 2) if ins[i].op == "s_waitcnt"
          and ins[i - 1].op == "v_cmp_gt_i32" and "v_cndmask_b32" in (ins[i + 1].op, ins[i + 2].op)]
    assert at, "no v_cmp / s_waitcnt / v_cndmask run in the kernel"
    dels = {m.site: m for m in sites_waitcnt(prog, 4)[0]}
    m = dels[at[0]]
    assert m.expected == ("HazardError",)
    r = run_mutant(kern, prog, m, seed=1)
    assert r.killed and r.precise, r.message
