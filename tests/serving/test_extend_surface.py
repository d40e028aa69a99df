"""The extend kind's surface: typed config errors, the contract's argument names, dims and launch
rules, ``asmgen attention --mode extend [--paged --page-size 16]`` (routed through the registry to
the ``extend`` kind, the same kernel as ``asmgen extend``) and ``asmgen check`` on its .json, a
bad flag as exit 2, and ``asmgen profile`` on an extend contract (time, bandwidth, tokens/s, the
HBM floor, the model error)."""
from __future__ import annotations

import json

import pytest

from asmgen import api
from asmgen.cli import main
from asmgen.cli.profile import profile
from asmgen.errors import ConfigError
from asmgen.kinds import registry
from asmgen.kinds.extend.config import ExtendConfig
from asmgen.kinds.extend.contract import extend_args
from asmgen.kinds.extend.profile import extend_bytes


@pytest.mark.parametrize("kw, what", [
    (dict(heads=6, kv_heads=4), "kv_heads=4 does not divide heads=6"),
    (dict(heads=512), "heads=512 is outside 1..256"),
    (dict(head_dim=96), "head_dim=96"),
    (dict(seqlen_q=300, max_context=256), "seqlen_q=300 is outside 1..256"),
    (dict(seqlen_q=64, max_context=256, context_len=40), "context_len=40 is outside 64..256"),
    (dict(paged=True, page_size=8), "page_size=8 is not one of"),
    (dict(paged=True, page_size=64, max_context=100), "not a multiple of page_size=64"),
    (dict(num_blocks=4), "applies to paged=True only"),
    (dict(dtype="f32"), "dtype='f32'"),
    (dict(prefetch=2), "prefetch=2 is outside 0..1"),
    (dict(arch="gfx90a"), "arch='gfx90a'"),
])
def test_config_errors_name_the_value_and_the_limit(kw, what):
    with pytest.raises(ConfigError, match=what.replace("(", r"\(").replace(".", r"\.")):
        ExtendConfig(**kw)


def test_contract_argument_names_and_dims():
    dense = {a.name: a for a in extend_args(ExtendConfig(batch=3, heads=8, kv_heads=2,
                                                         seqlen_q=16, max_context=64))}
    assert list(dense) == ["q", "k_cache", "v_cache", "context_lens", "cu_seqlens_q", "o",
                           "lse", "batch", "total_q", "scale", "max_seqlen_q"]
    assert dense["q"].dims == (8, "total_q", 128) and dense["lse"].dims == (8, "total_q")
    assert dense["k_cache"].dims == ("batch", 64, 2, 128)
    assert dense["cu_seqlens_q"].dims == ("batch+1",) and dense["context_lens"].range == (0, 64)
    assert dense["max_seqlen_q"].range == (1, 64) and dense["total_q"].value == 48
    paged = {a.name: a for a in extend_args(ExtendConfig(batch=2, heads=4, seqlen_q=16,
                                                         max_context=96, paged=True,
                                                         page_size=16))}
    assert paged["k_cache"].dims == ("num_blocks", 16, 4, 128)
    assert paged["block_table"].dims == ("batch", 6) and paged["num_blocks"].value == 12


def test_registry_lists_extend_as_an_attention_mode():
    assert registry.modes("attention")["extend"] == "extend"
    assert registry.get("extend").mode_of == ("attention", "extend")
    assert registry.of_config(ExtendConfig()).name == "extend"


def test_mode_extend_generates_checks_and_equals_the_subcommand(tmp_path, capsys):
    common = ["--batch", "3", "--heads", "4", "--kv-heads", "2", "--seqlen-q", "20",
              "--head-dim", "64", "--max-context", "96", "--context-len", "70", "--paged",
              "--page-size", "16"]
    assert main(["attention", "--mode", "extend", *common, "-o", str(tmp_path / "a")]) == 0
    assert main(["extend", *common, "-o", str(tmp_path / "b")]) == 0
    a = sorted(p.read_text() for p in (tmp_path / "a").glob("*.s"))
    b = sorted(p.read_text() for p in (tmp_path / "b").glob("*.s"))
    assert a == b and len(a) == 1
    path = next((tmp_path / "a").glob("*.json"))
    meta = json.loads(path.read_text())
    assert meta["config"]["kind"] == "extend" and meta["config"]["paged"]
    assert main(["check", str(path), "--seed", "2"]) == 0
    assert "OK attn_extend" in capsys.readouterr().out
    assert main(["check", str(path), "--size", "batch=1", "--size", "max_seqlen_q=7"]) == 0
    assert "OK attn_extend" in capsys.readouterr().out
    assert main(["check", str(path), "--size", "total_q=5"]) == 2
    assert "--size total_q" in capsys.readouterr().err


def test_check_shrinks_a_large_extend_contract(tmp_path, capsys):
    """16 x 512 new tokens over 4096 keys, 2 heads: over the check budget, so ``asmgen check``
    runs fewer, shorter sequences (the sizes it names), and passes."""
    kern = api.generate("extend", batch=16, heads=2, kv_heads=1, seqlen_q=512, head_dim=64,
                        max_context=4608, paged=True, page_size=64)
    path = kern.save(tmp_path)
    assert main(["check", str(path), "--seed", "1"]) == 0
    out = capsys.readouterr()
    assert "OK attn_extend" in out.out
    assert "checking at runtime sizes batch=" in out.out
    assert "instead of the contract's batch=16, max_seqlen_q=512" in out.out


def test_bad_flags_are_exit_2(tmp_path, capsys):
    assert main(["attention", "--mode", "extend", "--batch", "1", "--heads", "2", "--seqlen-q",
                 "8", "--head-dim", "64", "--max-context", "100", "--paged", "--page-size",
                 "64", "-o", str(tmp_path)]) == 2
    assert "not a multiple of page_size=64" in capsys.readouterr().err


def test_profile_time_bandwidth_and_what_sets_it(tmp_path):
    kern = api.generate("extend", batch=4, heads=8, kv_heads=2, seqlen_q=64, head_dim=128,
                        max_context=320, context_len=320, paged=True, page_size=16)
    out = profile(kern.save(tmp_path))
    assert out["kind"] == "extend" and out["time_set_by"] in ("cu", "hbm")
    assert out["cycles"] == max(out["cycles_cu_model"], out["cycles_hbm_floor"])
    moved = extend_bytes(kern.config, 4)
    assert moved["kv"] == 2 * 4 * 320 * 2 * 128 * 2
    assert out["bytes"]["total"] == moved["total"]
    secs = out["cycles"] / (out["perf"]["clock_mhz"] * 1e6)
    assert out["seconds"] == pytest.approx(secs)
    assert out["tokens_per_second"] == pytest.approx(4 * 64 / secs)
    # 2 Q-blocks per (sequence, head) of 9 and 10 key blocks; the problem's pairs of keys
    assert out["problem"]["n_wg"] == 2 * 4 * 8 and out["problem"]["kv_iters_mean"] == 9.5
    assert out["problem"]["flops"] == 4.0 * 4 * 8 * 128 * (64 * 256 + 64 * 65 // 2)
    assert out["extrapolation"] == "unmasked_growth" and out["cycles_per_iter"] > 0
    assert out["uncertainty"]["worst"] > 0 and 0 < out["tflops"]
