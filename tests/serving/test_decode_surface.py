"""The decode kinds' surface: typed config errors, the contract's argument names and launch
rules, the split-count choice, ``asmgen attention --mode decode`` (routed through the registry
to the ``decode`` kind, writing the combine kernel beside a split one) and ``asmgen check`` on
both .json files, and the unknown-mode error."""
from __future__ import annotations

import json

import pytest

from asmgen.cli import main
from asmgen.errors import ConfigError
from asmgen.kinds import registry
from asmgen.kinds.decode.config import DecodeConfig
from asmgen.kinds.decode.contract import decode_args
from asmgen.kinds.decode.splits import choose_splits


@pytest.mark.parametrize("kw, what", [
    (dict(heads=6, kv_heads=4), "kv_heads=4 does not divide heads=6"),
    (dict(q_tokens=17), "q_tokens=17 is outside 1..16"),
    (dict(head_dim=96), "head_dim=96"),
    (dict(paged=True, page_size=8), "page_size=8 is not one of"),
    (dict(paged=True, page_size=64, max_context=100), "not a multiple of page_size=64"),
    (dict(num_splits=9, max_context=256), "num_splits=9 is outside 1..8"),
    (dict(num_blocks=4), "applies to paged=True only"),
    (dict(context_len=300, max_context=256), "context_len=300 is outside 0..256"),
])
def test_config_errors_name_the_value_and_the_limit(kw, what):
    with pytest.raises(ConfigError, match=what.replace("(", r"\(").replace(".", r"\.")):
        DecodeConfig(**kw)


def test_contract_argument_names_and_dims():
    dense = {a.name: a for a in decode_args(DecodeConfig(batch=3, heads=8, kv_heads=2,
                                                         q_tokens=2, max_context=64,
                                                         num_splits=1))}
    assert list(dense) == ["q", "k_cache", "v_cache", "context_lens", "o", "lse", "batch",
                           "scale"]
    assert dense["k_cache"].dims == ("batch", 64, 2, 128)
    assert dense["context_lens"].dtype == "i32" and dense["o"].io == "out"
    paged = {a.name: a for a in decode_args(DecodeConfig(batch=3, heads=8, kv_heads=2,
                                                         max_context=64, paged=True,
                                                         page_size=16, num_splits=2))}
    assert list(paged) == ["q", "k_cache", "v_cache", "context_lens", "block_table",
                           "o_partial", "lse_partial", "batch", "num_blocks", "scale"]
    assert paged["k_cache"].dims == ("num_blocks", 16, 2, 128)
    assert paged["block_table"].dims == ("batch", 4) and paged["block_table"].dtype == "i32"
    assert paged["o_partial"].dims == ("batch", 2, 1, 8, 128)
    assert paged["num_blocks"].range == (1, (2**32 - 1) // (16 * 2 * 128 * 2))


def test_split_count_follows_batch_length_and_cus():
    # 64 x 8 KV heads = 512 workgroups already fill 304 CUs: no split
    assert choose_splits(64, 8, 8192, 304) == 1
    # one sequence, 8 KV heads on 304 CUs: 38 splits fill them exactly; 33 (264 workgroups,
    # 87 % of a wave) is the smallest count within 85 % of that
    assert choose_splits(1, 8, 8192, 304) == 33
    assert choose_splits(16, 8, 4096, 304) == 7      # 896 workgroups: 98 % of 3 waves
    # a short context is not split below 4 blocks of 32 keys per split
    assert choose_splits(1, 1, 100, 304) == 1 and choose_splits(1, 1, 256, 256) == 2
    # the config uses the arch's CU count (304 on gfx942, 256 on gfx950)
    assert DecodeConfig(batch=1, heads=8, max_context=4096, arch="gfx942").num_splits == 28
    assert DecodeConfig(batch=4, heads=32, kv_heads=8, max_context=8192,
                        arch="gfx950").num_splits == 7


def test_attention_mode_decode_on_the_cli_and_check(tmp_path, capsys):
    args = ["attention", "--mode", "decode", "--batch", "2", "--heads", "4", "--kv-heads", "2",
            "--q-tokens", "2", "--head-dim", "64", "--max-context", "128", "--num-splits", "2",
            "--paged", "--page-size", "16", "-o", str(tmp_path)]
    assert main(args) == 0
    names = sorted(p.name for p in tmp_path.glob("*.json"))
    assert len(names) == 2 and any("combine" in n for n in names)
    for n in names:
        meta = json.loads((tmp_path / n).read_text())
        assert registry.of_contract(meta).name in ("decode", "decode_combine")
        assert main(["check", str(tmp_path / n), "--seed", "2"]) == 0
    out = capsys.readouterr().out
    assert out.count("OK attn_decode") == 2


def test_decode_subcommand_equals_the_mode_alias(tmp_path):
    common = ["--batch", "1", "--heads", "2", "--head-dim", "64", "--max-context", "64"]
    assert main(["decode", *common, "-o", str(tmp_path / "a")]) == 0
    assert main(["attention", "--mode=decode", *common, "-o", str(tmp_path / "b")]) == 0
    a = sorted(p.read_text() for p in (tmp_path / "a").glob("*.s"))
    b = sorted(p.read_text() for p in (tmp_path / "b").glob("*.s"))
    assert a == b and len(a) == 1


def test_unknown_mode_is_a_user_error(tmp_path, capsys):
    assert main(["attention", "--mode", "chunked", "--batch", "1", "-o", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert "'chunked'" in err and "extend" in err          # the message lists the modes
    # prefill is the attention kind itself
    assert main(["attention", "--mode", "prefill", "--batch", "1", "--heads", "1", "--seqlen-q",
                 "8", "--seqlen-k", "8", "--head-dim", "64", "-o", str(tmp_path)]) == 0
