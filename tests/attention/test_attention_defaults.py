"""``asmgen attention`` with no tuning flag builds the configuration the cycle model ranks best
(``kinds.attention.defaults``); a tuning flag keeps the old defaults for the rest; every table
entry builds and assembles on its arch; the chosen default kernel matches NumPy on the emulator."""
from __future__ import annotations

import json

import pytest

from asmgen.cli import main
from asmgen.errors import ConfigError
from asmgen.kinds.attention.config import AttentionConfig
from asmgen.kinds.attention.defaults import TABLE, build_default, candidates
from asmgen.target import ARCHES

PROBLEM = ["--batch", "1", "--heads", "2", "--seqlen-k", "200", "--head-dim", "64",
           "--dtype", "bf16"]


def _generate(tmp_path, *flags):
    assert main(["attention", *PROBLEM, *flags, "--no-cache", "-o", str(tmp_path)]) == 0
    return json.loads(next(tmp_path.glob("*.json")).read_text())


@pytest.mark.parametrize("causal", [False, True])
def test_no_tuning_flag_picks_the_table_row(tmp_path, capsys, causal):
    meta = _generate(tmp_path, "--seqlen-q", "300", *(["--causal"] if causal else []))
    sched, waves, bufs = TABLE[(ARCHES[0], 64, causal)]
    assert f"default configuration: schedule={sched} waves={waves} kv_buffers={bufs}" in \
        capsys.readouterr().out
    assert (meta["schedule"], meta["config"]["waves"], meta["config"]["kv_buffers"]) == \
        (sched, waves, bufs)
    assert (sched, waves, bufs) != ("attn_basic", 1, 1)     # the table is not the old default
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


def test_candidates_and_fallback():
    assert candidates(ARCHES[0], 128, False, 8192)[0] == dict(zip(
        ("schedule", "waves", "kv_buffers"), TABLE[(ARCHES[0], 128, False)]))
    assert candidates(ARCHES[0], 128, False, 127)[0]["waves"] == 1
    with pytest.raises(ConfigError, match="gfx90a"):
        candidates("gfx90a", 128, False, 8192)
    tried = []

    def gen(**kw):     # the table's row refused (e.g. a register budget): the next one is built
        tried.append(kw["waves"])
        if kw["waves"] > 1:
            raise ConfigError("refused")
        return AttentionConfig(**{k: v for k, v in kw.items() if k != "schedule"})
    cfg, cand = build_default(gen, arch=ARCHES[0], head_dim=128, causal=False, seqlen_q=8192)
    assert tried == [4, 1] and cand["waves"] == 1 and cfg.waves == 1

    def refuse(**kw):
        raise ConfigError(f"no {kw['schedule']}")
    with pytest.raises(ConfigError, match="no attn_basic"):
        build_default(refuse, arch=ARCHES[0], head_dim=64, causal=False, seqlen_q=8192)
