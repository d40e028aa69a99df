"""AttentionConfig validation, the float64 reference (against a per-row loop and the empty-row
rule), the contract and the CLI (``attention`` + ``check``)."""
from __future__ import annotations

import json
import math

import numpy as np
import pytest
from attn_util import steady_body

from asmgen.errors import ConfigError
from asmgen.kinds.attention.config import AttentionConfig
from asmgen.kinds.attention.reference import attention_reference


@pytest.mark.parametrize("kw,needle", [
    ({"head_dim": 96}, "head_dim=96"), ({"heads": 4, "kv_heads": 3}, "kv_heads=3"),
    ({"seqlen_q": 0}, "seqlen_q=0"), ({"seqlen_k": 1 << 21}, "seqlen_k=2097152"),
    ({"dtype": "fp8_e4m3"}, "fp8_e4m3"), ({"arch": "gfx90a"}, "gfx90a"),
    ({"heads": 2048}, "heads=2048"), ({"kv_heads": 2}, "kv_heads=2"),
    ({"mfma_k": 16}, "mfma_k=16"), ({"scale": -1.0}, "scale=-1.0"),
    ({"head_dim": 512}, "head_dim=512 is not one of"),
])
def test_config_errors_name_value_and_limit(kw, needle):
    with pytest.raises(ConfigError, match=needle.replace("(", r"\(")):
        AttentionConfig(**kw)


def test_config_defaults():
    c = AttentionConfig(heads=4, seqlen_q=100, head_dim=128, arch="gfx950")
    assert c.kv_heads == 4 and c.mfma_k == 16 and math.isclose(c.scale, 128 ** -0.5)
    assert c.grid == (4, 4, 1)
    assert AttentionConfig().mfma == "v_mfma_f32_32x32x8_f16"


def _loop_reference(Q, K, V, scale, causal):
    B, H, SQ, D = Q.shape
    HK, SK = K.shape[1], K.shape[2]
    O = np.zeros((B, H, SQ, D))
    L = np.zeros((B, H, SQ))
    for b in range(B):
        for h in range(H):
            g = h // (H // HK)
            for i in range(SQ):
                keys = [j for j in range(SK) if not causal or j <= i + SK - SQ]
                if not keys:
                    L[b, h, i] = -np.inf
                    continue
                s = np.array([Q[b, h, i] @ K[b, g, j] for j in keys]) * scale
                w = np.exp(s - s.max())
                O[b, h, i] = (w / w.sum()) @ V[b, g, keys]
                L[b, h, i] = s.max() + np.log(w.sum())
    return O, L


@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("sq,sk", [(5, 3), (3, 7), (4, 4)])
def test_reference_matches_loop(causal, sq, sk):
    rng = np.random.default_rng(0)
    Q, K, V = rng.normal(size=(2, 4, sq, 8)), rng.normal(size=(2, 2, sk, 8)), rng.normal(size=(2, 2, sk, 8))
    o, lse = attention_reference(Q, K, V, 0.3, causal)
    o2, l2 = _loop_reference(Q, K, V, 0.3, causal)
    assert np.allclose(o, o2, atol=1e-12)
    assert np.array_equal(np.isneginf(lse), np.isneginf(l2))
    fin = np.isfinite(l2)
    assert np.allclose(lse[fin], l2[fin], atol=1e-12)
    if causal and sq > sk:
        assert np.all(o[:, :, : sq - sk] == 0) and np.all(np.isneginf(lse[:, :, : sq - sk]))


def test_contract_and_cli(tmp_path, capsys):
    from asmgen.cli import main
    rc = main(["attention", "--batch", "1", "--heads", "2", "--kv-heads", "1", "--seqlen-q", "40",
               "--seqlen-k", "33", "--head-dim", "64", "--causal", "-o", str(tmp_path)])
    assert rc == 0
    path = next(tmp_path.glob("*.json"))
    meta = json.loads(path.read_text())
    assert meta["config"]["kind"] == "attention" and meta["config"]["causal"] is True
    assert [a["name"] for a in meta["args"]] == ["Q", "K", "V", "O", "LSE", "batch", "heads",
                                                  "kv_heads", "seqlen_q", "seqlen_k", "scale"]
    # causal: (heads, batch, Q-blocks), longest Q-block first (kinds.attention.grid)
    assert meta["grid"] == [2, 1, 2] and meta["block"] == [64, 1, 1]
    assert meta["args"][4]["shape"] == [1, 2, 40] and meta["args"][4]["dtype"] == "f32"
    assert main(["check", str(path), "--seed", "1"]) == 0
    assert "OK" in capsys.readouterr().out


def test_cli_bad_head_dim_is_exit_2(tmp_path):
    from asmgen.cli import main
    assert main(["attention", "--batch", "1", "--heads", "1", "--seqlen-q", "4", "--seqlen-k",
                 "4", "--head-dim", "80", "-o", str(tmp_path)]) == 2


def test_recipes_registered_and_validated():
    from asmgen.errors import ConfigError as CE
    from asmgen.api import get_attention_recipe
    for name in ("attn_basic", "attn_interleave"):
        r = get_attention_recipe(name, seed=3)
        assert r.name == name and r.params["seed"] == 3
        assert r.for_block("loop") is not None and r.for_block("prologue") is None
    with pytest.raises(CE, match="valu_per_mfma=0"):
        get_attention_recipe("attn_interleave", valu_per_mfma=0)
    with pytest.raises(CE, match="attn_nope"):
        get_attention_recipe("attn_nope")


@pytest.mark.parametrize("schedule", ["attn_basic", "attn_interleave"])
def test_setprio_brackets_the_mfmas(schedule):
    """The recipes put s_setprio 1 before the first MFMA and s_setprio 0 after the last."""
    from asmgen.api import attention
    k = attention(head_dim=128, schedule=schedule, assemble=False)
    body = [n.instr for n in steady_body(k)]
    ops = [i.op for i in body]
    mf = [i for i, op in enumerate(ops) if op.startswith("v_mfma")]
    sp = [i for i, op in enumerate(ops) if op == "s_setprio"]
    assert len(sp) == 2 and sp[0] < mf[0] and sp[1] > mf[-1]
    assert str(body[sp[0]]) == "s_setprio 1" and str(body[sp[1]]) == "s_setprio 0"
