"""The kind registry, the one driver and what every kind now gets from it (issue 12): kernel names
with the schedule, the occupancy check, the cache entry point, kernarg offsets from the contract,
the runtime grid rule, and recipes resolved from above (asmgen imports no ``schedules``)."""
from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from asmgen import api, driver, kernarg
from asmgen.errors import KernargError, ResourceError
from asmgen.kernarg import ArgSpec
from asmgen.kinds import registry
from asmgen.kinds.attention.config import AttentionConfig
from asmgen.kinds.gemm.config import GemmConfig
from asmgen.runtime.emu import runtime_grid

ROOT = Path(__file__).resolve().parents[2]


def test_registry_finds_kinds_by_name_config_and_contract():
    gemm, attn = registry.get("gemm"), registry.get("attention")
    assert {"gemm", "attention"} <= set(registry.names())
    assert registry.of_config(GemmConfig(m=64, n=64, k=64)) is gemm
    assert registry.of_config(AttentionConfig(seqlen_q=32, seqlen_k=32)) is attn
    assert registry.of_contract({"config": {"kind": "attention"}}) is attn
    with pytest.raises(registry.UnknownKind, match="'conv' is not registered"):
        registry.of_contract({"config": {"kind": "conv"}})
    with pytest.raises(registry.UnknownKind, match="config of no registered kernel kind"):
        registry.of_config(object())
    with pytest.raises(registry.DuplicateKind):
        registry.register(type(gemm)())


def test_attention_kernel_names_carry_the_schedule():
    kw = dict(seqlen_q=32, seqlen_k=64, assemble=False)
    a = api.attention(schedule="attn_basic", **kw)
    b = api.attention(schedule="attn_interleave", **kw)
    assert a.name == f"{a.config.name}_attn_basic" and b.name == f"{b.config.name}_attn_interleave"
    assert a.meta["kernel"] == a.name and f".amdhsa_kernel {a.name}\n" in a.asm


def test_every_kind_goes_through_the_occupancy_check(monkeypatch):
    seen = []
    monkeypatch.setattr(driver, "check_occupancy", lambda waves, res: seen.append((waves, res.name)))
    api.attention(seqlen_q=64, seqlen_k=64, waves=2, assemble=False)
    api.gemm(64, 64, 64, assemble=False)
    assert [w for w, _ in seen] == [2, 4]


def test_occupancy_check_refuses_waves_that_cannot_be_resident():
    class Res:
        vgprs, agprs, waves_per_simd = 256, 256, 1
    driver.check_occupancy(4, Res())
    with pytest.raises(ResourceError, match="8 waves per workgroup need 2 waves per SIMD"):
        driver.check_occupancy(8, Res())


def test_cache_entry_point_for_attention(tmp_path):
    from asmgen.cache import cached_generate
    kw = dict(seqlen_q=32, seqlen_k=40, causal=True, root=tmp_path)
    k1, hit1 = cached_generate("attention", **kw)
    k2, hit2 = cached_generate("attention", schedule="attn_basic", **kw)   # the default, spelled out
    assert (hit1, hit2) == (False, True)
    assert (k2.asm, k2.hsaco, k2.meta) == (k1.asm, k1.hsaco, k1.meta) and k2.config == k1.config


def _loads(asm: str) -> list[int]:
    return [int(m.group(1), 0) for m in re.finditer(r"s_load_dword\S*\s+s\[\d+:\d+\], s\[0:1\], (\w+)", asm)]


@pytest.mark.parametrize("bias, bake", [(False, False), (True, False), (True, True)])
def test_gemm_prologue_loads_the_contract_offsets(bias, bake):
    k = api.gemm(64, 64, 64, bias=bias, bake_sizes=bake, assemble=False)
    offs = kernarg.offsets(api.gemm_args(k.config))
    want = [offs[n] for n in ("A", "B", "C")] + ([offs["bias"]] if bias else [])
    want.append(offs["alpha"] if bake else offs["M"])
    assert sorted(_loads(k.asm)) == sorted(want)
    assert k.meta["kernarg_size"] == kernarg.kernarg_size(api.gemm_args(k.config))


def test_attention_prologue_loads_the_contract_offsets():
    k = api.attention(seqlen_q=32, seqlen_k=32, assemble=False)
    offs = kernarg.offsets(registry.get("attention").args(k.config))
    want = [offs[n] for n in ("Q", "K", "V", "O", "LSE", "batch", "seqlen_k")]
    assert sorted(_loads(k.asm)) == sorted(want)


def test_kernarg_offsets_and_contiguous_runs():
    args = [ArgSpec("P", "buffer", "f32"), ArgSpec("n", "scalar", "u32"), ArgSpec("x", "scalar", "f32"),
            ArgSpec("Q", "buffer", "f32"), ArgSpec("m", "scalar", "u32")]
    assert kernarg.offsets(args) == {"P": 0, "n": 8, "x": 12, "Q": 16, "m": 24}
    assert kernarg.contiguous(args, ("n", "x")) == 8
    with pytest.raises(KernargError, match="not consecutive dwords"):
        kernarg.contiguous(args, ("x", "m"))
    with pytest.raises(KernargError, match="no argument 'k'"):
        kernarg.contiguous(args, ("n", "k"))


def test_runtime_grid_follows_the_contract_rule():
    k = api.gemm(100, 70, 64, tile=(64, 32, 32), waves=(2, 1), assemble=False)
    assert k.meta["grid"] == [2, 3, 1] and k.meta["grid_from"] == [["M", 64], ["N", 32], None]
    assert runtime_grid(k.meta, {"M": 129, "N": 32}) == (3, 1, 1)
    a = api.attention(seqlen_q=64, seqlen_k=64, assemble=False)
    assert runtime_grid(a.meta, {"seqlen_q": 100, "heads": 3, "batch": 2}) == (4, 3, 2)


def test_recipes_come_from_the_provider_named_not_imported():
    code = ("import sys, asmgen.api as a\n"
            "assert 'schedules' not in sys.modules, 'imported too early'\n"
            "k = a.gemm(64, 64, 64, schedule='pgr2', assemble=False)\n"
            "assert 'schedules' in sys.modules and k.meta['schedule'] == 'pgr2'\n"
            "from asmgen import recipes\n"
            "try:\n    recipes.register('pgr2')(lambda **p: None)\nexcept recipes.DuplicateRecipe:\n"
            "    print('dup refused')\n")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "dup refused"


def test_unknown_schedule_lists_the_registered_ones():
    from asmgen.recipes import UnknownRecipe
    with pytest.raises(UnknownRecipe, match="valid schedules: .*attn_basic.*pgr1"):
        api.generate("gemm", schedule="pgr9", m=64, n=64, k=64)


def test_runtime_buffer_rules_come_from_the_contract_not_argument_names():
    """Row pitch and runtime rows of a 2-D buffer are the contract's ``ld`` / ``rows`` scalars
    (a GEMM's A/B/C carry lda/ldb/ldc and C's M), so the runners know no kind's names."""
    import numpy as np

    from asmgen.runtime.emu import host_buffer, host_zeros
    x = ArgSpec("X", "buffer", "f32", (3, 5), (5, 1), "in", ld="pitch")
    y = ArgSpec("Y", "buffer", "f32", (3, 5), (5, 1), "out", ld="pitch", rows="r")
    buf = host_buffer(x, np.ones((3, 5), np.float32), {"pitch": 8})
    assert buf.shape == (3, 8) and buf[:, 5:].sum() == 0 and buf[:, :5].sum() == 15
    assert host_zeros(y, {"pitch": 8, "r": 4}).shape == (4, 8)
    assert ArgSpec.from_dict(y.to_dict()) == y and y.to_dict()["ld"] == "pitch"
    with pytest.raises(KernargError, match="needs a buffer argument"):
        ArgSpec("n", "scalar", "u32", ld="pitch")
    args = {a["name"]: a for a in api.gemm(64, 64, 64, assemble=False).meta["args"]}
    assert (args["A"]["ld"], args["B"]["ld"], args["C"]["ld"], args["C"]["rows"]) == \
        ("lda", "ldb", "ldc", "M")
