"""Bounded fuzzing of the attention kernel: random AttentionConfigs x random legal (``fuzz``
recipe) schedules x emulator seeds must compile and match the NumPy reference; an attention
reproducer round-trips through ``asmgen check`` and ``asmgen fuzz attention --replay``; shrinking
an attention failure keeps its kind and makes the config smaller."""
from __future__ import annotations

import json
import os
import shlex

from hypothesis import given, settings

from asmgen.cli import main
from asmgen.fuzz import cases
from asmgen.fuzz.cases import Outcome, load_reproducer, run_case, save_reproducer, shrink
from asmgen.fuzz.runner import campaign
from asmgen.fuzz.strategies import FuzzCase, fuzz_cases
from asmgen.kinds.attention.config import AttentionConfig

PROFILE = settings.get_profile(os.environ.get("ASMGEN_FUZZ_PROFILE", "ci"))


@settings(PROFILE, max_examples=max(PROFILE.max_examples, 6))
@given(case=fuzz_cases(small=True, kind="attention"))
def test_random_attention_config_and_schedule_is_correct_on_emulator(case):
    assert case.kind == "attention" and 1 <= case.config.seqlen_q <= 130
    out = run_case(case)
    assert not out.failed, (f"{out.kind} for {case.describe()} (config {case.config.to_dict()}): "
                            f"{out.message[:1500]}")
    assert out.kind == "pass", f"{out.kind}: {out.message}"


def test_attention_reproducer_round_trips(tmp_path, capsys):
    cfg = AttentionConfig(heads=2, kv_heads=1, seqlen_q=33, seqlen_k=47, causal=True,
                          dtype="bf16", arch="gfx950", mfma_k=8, prefetch=0)
    case = FuzzCase(cfg, 9, 4)
    out = run_case(case)
    assert out.kind == "pass", out.message
    path = save_reproducer(tmp_path, 1, case, out)
    data = json.loads(path.read_text())
    assert data["kind"] == "attention" and data["config"]["kind"] == "attention"
    assert data["schedule_params"] == {"seed": 9}
    assert "fuzz attention --replay" in data["replay_command"]
    assert load_reproducer(path) == case
    argv = shlex.split(data["check_command"])
    assert argv[0] == "asmgen" and main(argv[1:]) == 0
    assert "OK" in capsys.readouterr().out
    assert main(["fuzz", "attention", "--replay", str(path)]) == 0


def test_attention_shrink_keeps_the_failure_and_shrinks(monkeypatch):
    """A fake failure (any case with seqlen_k > 40 and causal) shrinks to the boundary."""
    def fake_run(case):
        c = case.config
        bad = c.seqlen_k > 40 and c.causal
        return Outcome("Mismatch" if bad else "pass", "fake")
    monkeypatch.setattr(cases, "run_case", fake_run)
    big = FuzzCase(AttentionConfig(batch=2, heads=4, kv_heads=2, seqlen_q=100, seqlen_k=129,
                                   head_dim=128, causal=True, arch="gfx950"), 1, 2)
    small, out = shrink(big, "Mismatch", max_attempts=200)
    c = small.config
    assert out is not None and out.kind == "Mismatch"
    assert (c.seqlen_q, c.seqlen_k, c.heads, c.batch, c.head_dim) == (1, 41, 1, 1, 64), c
    assert c.causal and c.arch == "gfx942" and c.scale == 1.0 / 8.0


def test_attention_campaign_counts_cases(tmp_path):
    s = campaign("attention", budget=None, examples=2, seed=3, outdir=tmp_path,
                 progress_stream=None)
    assert s.cases == 2 and s.failed == 0 and s.kind == "attention"
    assert json.loads((tmp_path / "summary.json").read_text())["kind"] == "attention"
