"""``asmgen attention`` with no tuning flag builds the configuration the cycle model ranks best
(``kinds.attention.defaults``); a tuning flag keeps the old defaults for the rest; every table
entry builds and assembles on its arch; the chosen default kernel matches NumPy on the emulator."""
from __future__ import annotations

import json

import pytest

from asmgen.cli import main
from asmgen.errors import ConfigError
from asmgen.kinds.attention.config import AttentionConfig
from asmgen.kinds.attention.defaults import (
    MASKED,
    MASKED_PINGPONG,
    PINGPONG,
    TABLE,
    build_default,
    candidates,
)
from asmgen.target import ARCHES

PROBLEM = ["--batch", "1", "--heads", "2", "--seqlen-k", "256", "--head-dim", "64",
           "--dtype", "bf16"]


def _generate(tmp_path, *flags):
    assert main(["attention", *PROBLEM, *flags, "--no-cache", "-o", str(tmp_path)]) == 0
    return json.loads(next(tmp_path.glob("*.json")).read_text())


@pytest.mark.parametrize("causal,multiple", [(False, 8), (False, 32), (True, 8)])
def test_no_tuning_flag_picks_the_table_row(tmp_path, capsys, causal, multiple):
    meta = _generate(tmp_path, "--seqlen-q", "300", "--seqlen-k-multiple", str(multiple),
                     *(["--causal"] if causal else []))
    masked = not causal and multiple % 32
    sched, waves, bufs = MASKED[(ARCHES[0], 64)] if masked else TABLE[(ARCHES[0], 64, causal)]
    assert f"default configuration: schedule={sched} waves={waves} kv_buffers={bufs}" in \
        capsys.readouterr().out
    assert (meta["schedule"], meta["config"]["waves"], meta["config"]["kv_buffers"]) == \
        (sched, waves, bufs)
    # the default kernel is correct on the emulator (two seeds)
    path = str(next(tmp_path.glob("*.json")))
    for seed in ("0", "1"):
        assert main(["check", path, "--seed", seed]) == 0


def test_short_queries_get_one_wave(tmp_path, capsys):
    meta = _generate(tmp_path, "--seqlen-q", "100")
    assert "schedule=attn_interleave waves=1 kv_buffers=1" in capsys.readouterr().out
    assert meta["config"]["waves"] == 1 and meta["schedule"] == "attn_interleave"


@pytest.mark.parametrize("flags,want", [
    (["--waves", "2"], ("attn_basic", 2, 2)),
    (["--schedule", "attn_prio"], ("attn_prio", 1, 1)),
    (["--kv-buffers", "3", "--waves", "4"], ("attn_basic", 4, 3)),
    (["--seed", "3", "--schedule", "shuffle"], ("shuffle", 1, 1)),
])
def test_explicit_flags_win(tmp_path, capsys, flags, want):
    meta = _generate(tmp_path, "--seqlen-q", "300", *flags)
    assert "default configuration" not in capsys.readouterr().out
    assert (meta["schedule"], meta["config"]["waves"], meta["config"]["kv_buffers"]) == want


@pytest.mark.parametrize("key", sorted(TABLE))
def test_every_table_row_builds_and_assembles(key):
    from asmgen.api import attention
    arch, d, causal = key
    sched, waves, bufs = TABLE[key]
    k = attention(batch=2, heads=2, seqlen_q=512, seqlen_k=512, head_dim=d, dtype="bf16",
                  causal=causal, arch=arch, schedule=sched, waves=waves, kv_buffers=bufs,
                  cache=False)
    assert k.hsaco and k.meta["config"]["waves"] == waves


def _row(t) -> dict:
    return dict(zip(("schedule", "waves", "kv_buffers"), t))


def test_pingpong_rows_come_first_for_long_mask_free_queries():
    """The 8-wave ping-pong leads where ``PINGPONG`` has a row, for 256 query rows or more and
    no per-element key mask; the 4-wave table row follows it (the generator may refuse it)."""
    assert PINGPONG
    for (arch, d, causal), row in PINGPONG.items():
        got = candidates(arch, d, causal, 8192, 32)
        assert got[:2] == [_row(row), _row(TABLE[(arch, d, causal)])]
        assert candidates(arch, d, causal, 255, 32)[0] == _row(TABLE[(arch, d, causal)])
    # D128 on both arches, causal or not: the model's order (gfx950 pingpong 1471 > 1372,
    # causal 1363 > 1356 TF at the sustained clock); no other head dim has the loop
    assert set(PINGPONG) == {(a, 128, c) for a in ARCHES for c in (False, True)}


def test_pingpong_leads_with_the_key_mask_kept_for_long_queries():
    """Non-causal without a length promise, D128, 256 query rows or more: the ping-pong first
    (``MASKED_PINGPONG``, both arches), then the masked ranking's row; shorter queries start
    at the masked ranking's row."""
    assert set(MASKED_PINGPONG) == {(a, 128) for a in ARCHES}
    for (arch, d), row in MASKED_PINGPONG.items():
        assert candidates(arch, d, False, 8192, 1)[:2] == [_row(row), _row(MASKED[(arch, d)])]
        assert candidates(arch, d, False, 255, 1)[0] == _row(MASKED[(arch, d)])
        assert candidates(arch, d, True, 8192, 1)[0] == _row(
            PINGPONG.get((arch, d, True), TABLE[(arch, d, True)]))


def test_candidates_and_fallback():
    assert candidates(ARCHES[0], 128, False, 255)[0] == dict(zip(
        ("schedule", "waves", "kv_buffers"), MASKED[(ARCHES[0], 128)]))
    assert candidates(ARCHES[0], 64, False, 8192, 32)[0] == dict(zip(
        ("schedule", "waves", "kv_buffers"), TABLE[(ARCHES[0], 64, False)]))
    assert candidates(ARCHES[0], 128, False, 127)[0]["waves"] == 1
    # non-causal with the key mask kept takes the masked ranking; causal and mask-free do not
    for arch, d in MASKED:
        row = dict(zip(("schedule", "waves", "kv_buffers"),
                       MASKED_PINGPONG.get((arch, d), MASKED[(arch, d)])))
        assert candidates(arch, d, False, 8192, 1)[0] == row
        assert candidates(arch, d, False, 8192, 16)[0] == row
        assert candidates(arch, d, False, 8192, 64)[0] == _row(
            PINGPONG.get((arch, d, False), TABLE[(arch, d, False)]))
        assert candidates(arch, d, True, 8192, 1)[0] == _row(
            PINGPONG.get((arch, d, True), TABLE[(arch, d, True)]))
    with pytest.raises(ConfigError, match="gfx90a"):
        candidates("gfx90a", 128, False, 8192)
    tried = []

    def gen(**kw):     # the table's row refused (e.g. a register budget): the next one is built
        tried.append(kw["waves"])
        if kw["waves"] > 1:
            raise ConfigError("refused")
        return AttentionConfig(**{k: v for k, v in kw.items() if k != "schedule"})
    cfg, cand = build_default(gen, arch=ARCHES[0], head_dim=128, causal=False, seqlen_q=8192,
                              seqlen_k_multiple=32)
    assert tried == [8, 4, 1] and cand["waves"] == 1 and cfg.waves == 1

    def refuse(**kw):         # every candidate refused: the last one's error
        raise ConfigError(f"no {kw['schedule']} w{kw['waves']}")
    with pytest.raises(ConfigError, match="no attn_basic w1"):
        build_default(refuse, arch=ARCHES[0], head_dim=128, causal=False, seqlen_q=8192)
