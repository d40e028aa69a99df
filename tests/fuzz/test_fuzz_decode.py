"""Fuzzing and the mutation proof of the decode kind (issue 17): random DecodeConfigs (dense and
paged, splits, GQA, 1..16 tokens) x random legal (``fuzz`` recipe) schedules must match the NumPy
reference on the emulator; a decode reproducer round-trips through ``asmgen check`` and
``--replay``; shrinking keeps the failure; ``asmgen fuzz decode --mutate`` kills every
correctness mutant of its first proof kernel as predicted; and the swap-site rule the decode proof
forced (two float adds into one accumulator only reassociate the sum) holds on a hand-written
stream."""
from __future__ import annotations

import json
import os
import shlex

from hypothesis import given, settings

from asmgen.cli import main
from asmgen.fuzz import cases
from asmgen.fuzz.cases import Outcome, load_reproducer, run_case, save_reproducer, shrink
from asmgen.fuzz.mutate import Program
from asmgen.fuzz.mutate_sites import sites_swap
from asmgen.fuzz.runner import campaign
from asmgen.fuzz.strategies import FuzzCase, fuzz_cases
from asmgen.kinds.decode.config import DecodeConfig
from asmgen.target import target_of

PROFILE = settings.get_profile(os.environ.get("ASMGEN_FUZZ_PROFILE", "ci"))


@settings(PROFILE, max_examples=max(PROFILE.max_examples, 4))
@given(case=fuzz_cases(small=True, kind="decode"))
def test_random_decode_config_and_schedule_is_correct_on_emulator(case):
    assert case.kind == "decode" and 1 <= case.config.context_len <= 130
    out = run_case(case)
    assert not out.failed, (f"{out.kind} for {case.describe()} (config {case.config.to_dict()}): "
                            f"{out.message[:1500]}")
    assert out.kind in ("pass", "refused:RegisterBudgetError"), f"{out.kind}: {out.message}"


def test_decode_reproducer_round_trips(tmp_path, capsys):
    cfg = DecodeConfig(batch=2, heads=4, kv_heads=2, q_tokens=3, head_dim=64, max_context=96,
                       context_len=70, paged=True, page_size=16, num_splits=2, arch="gfx950")
    case = FuzzCase(cfg, 5, 2)
    out = run_case(case)
    assert out.kind == "pass", out.message
    path = save_reproducer(tmp_path, 1, case, out)
    data = json.loads(path.read_text())
    assert data["kind"] == "decode" and data["config"]["kind"] == "decode"
    assert load_reproducer(path) == case
    argv = shlex.split(data["check_command"])
    assert argv[0] == "asmgen" and main(argv[1:]) == 0
    assert "OK" in capsys.readouterr().out
    assert main(["fuzz", "decode", "--replay", str(path)]) == 0


def test_decode_shrink_keeps_the_failure_and_shrinks(monkeypatch):
    """A fake failure (paged with more than one split) shrinks to the smallest such config."""
    def fake_run(case):
        c = case.config
        return Outcome("Mismatch" if c.paged and c.num_splits > 1 else "pass", "fake")
    monkeypatch.setattr(cases, "run_case", fake_run)
    big = FuzzCase(DecodeConfig(batch=2, heads=8, kv_heads=2, q_tokens=5, head_dim=128,
                                max_context=256, context_len=250, paged=True, page_size=64,
                                num_splits=3, arch="gfx950"), 1, 2)
    small, out = shrink(big, "Mismatch", max_attempts=300)
    c = small.config
    assert out is not None and out.kind == "Mismatch"
    assert c.paged and c.num_splits > 1
    assert (c.batch, c.heads, c.q_tokens, c.head_dim, c.arch) == (1, 1, 1, 64, "gfx942"), c
    assert c.context_len < 250 and c.max_context < 256


def test_decode_campaign_counts_cases(tmp_path):
    s = campaign("decode", budget=None, examples=2, seed=3, outdir=tmp_path,
                 progress_stream=None)
    assert s.cases == 2 and s.failed == 0 and s.kind == "decode"


def test_decode_mutation_proof_kills_every_correctness_mutant(tmp_path):
    # two proof kernels: since d598bc9 the first alone has no s_nop left (the softmax fills its
    # wait states), so no shorten_nop site
    rc = main(["fuzz", "decode", "--mutate", "--kernels", "2", "--examples", "2", "--seed", "3",
               "-o", str(tmp_path)])
    rows = json.loads((tmp_path / "mutations.json").read_text())
    text = (tmp_path / "mutations.txt").read_text()
    assert rc == 0, text
    classes = {r["class"] for r in rows if r.get("class") != "drop_setprio"}
    assert {"delete_waitcnt", "raise_waitcnt", "shorten_nop", "swap_dependent",
            "reuse_inflight"} <= classes, classes
    assert "paged16" in text


def test_accumulating_adds_are_no_swap_sites():
    """``l += p0; l += p1`` swapped is ``l += p1; l += p0``: a rounding change, not a bug the
    emulator could see (the decode proof's running sums); a dependent pair stays a site."""
    lines = ["k:", "  s_mov_b32 s0, 4", "loop:", "  v_pk_add_f32 v[0:1], v[0:1], v[2:3]",
             "  v_pk_add_f32 v[0:1], v[0:1], v[4:5]", "  v_add_f32 v6, v6, v7",
             "  v_add_f32 v6, v6, v8", "  v_mul_f32 v9, v6, v7", "  s_sub_u32 s0, s0, 1",
             "  s_cmp_lg_u32 s0, 0", "  s_cbranch_scc1 loop", "  s_endpgm"]
    prog = Program.from_asm("\n".join(lines), target_of("gfx942"), "k")
    descr = [m.description for m in sites_swap(prog, 1)]
    assert not any("v_pk_add_f32 v[0:1], v[0:1], v[2:3] <->" in d for d in descr), descr
    assert not any("v_add_f32 v6, v6, v7 <->" in d for d in descr), descr
    assert any("v_add_f32 v6, v6, v8 <->" in d and "v_mul_f32 v9" in d for d in descr), descr


def test_combine_campaign_and_mutation_proof(tmp_path):
    """The split combine kernel is fuzzed (random configs x fuzz orders) and mutation-proven too."""
    s = campaign("decode_combine", budget=None, examples=2, seed=1, outdir=tmp_path / "fz",
                 progress_stream=None)
    assert s.cases == 2 and s.failed == 0
    rc = main(["fuzz", "decode_combine", "--mutate", "--kernels", "1", "--examples", "2",
               "--seed", "1", "-o", str(tmp_path / "mut")])
    text = (tmp_path / "mut" / "mutations.txt").read_text()
    assert rc == 0, text
    rows = json.loads((tmp_path / "mut" / "mutations.json").read_text())
    assert {"delete_waitcnt", "reuse_inflight"} <= {r["class"] for r in rows}, text


def test_decode_fuzz_draws_per_token_scales_and_shrinks_them_away():
    """fp8 configs draw per-tensor and per-token scales; a shrink step drops per-token scales
    to per-tensor, and dropping the fp8 cache drops them too (kv_scale needs fp8); a proof
    kernel has per-token scales."""
    from hypothesis import find

    from asmgen.kinds.decode.fuzz import PROOF_KERNELS, candidates, decode_configs, to_raw
    cfg = find(decode_configs(), lambda c: c.kv_scale == "token")
    assert cfg.kv_fp8
    cands = list(candidates(to_raw(cfg)))
    assert any(c["kv_scale"] == "tensor" and c["kv_dtype"] is not None for c in cands)
    assert all(c["kv_scale"] == "tensor" for c in cands if c["kv_dtype"] is None)
    for c in cands:                     # the scale and cache moves give legal configs
        if c["kv_scale"] != cfg.kv_scale or c["kv_dtype"] != cfg.kv_dtype:
            DecodeConfig(**{k: v for k, v in c.items() if k != "kind"})
    assert any(k.get("kv_scale") == "token" for k in PROOF_KERNELS)
