"""Multi-wave attention workgroups sharing K/V through LDS (``waves`` 2/4, ``kv_buffers`` 2/3):
LLVM-assembled kernels on the emulator vs the float64 reference, the barrier that keeps the
buffers race-free, the config limits, and the per-cluster s_setprio recipes.

Default cases cover waves 1/2/4, kv_buffers 2/3, both arches, f16/bf16, D 64/128, causal or
not, GQA, lengths 1, 77 and 100+ off the block size, every attention recipe, two emulator seeds;
``--runslow`` adds the full cross product."""
from __future__ import annotations

import copy
import itertools

import numpy as np
import pytest
from attn_util import ir_loop_blocks, kernel, run_case, steady_body

from asmgen.errors import ConfigError
from asmgen.kinds.attention.config import AttentionConfig

C = AttentionConfig
CASES = [
    (C(waves=4, seqlen_q=1, seqlen_k=1), "attn_basic"),
    (C(waves=2, heads=2, kv_heads=1, seqlen_q=77, seqlen_k=77, causal=True), "attn_prio"),
    (C(waves=4, heads=2, kv_heads=1, seqlen_q=100, seqlen_k=100, head_dim=128, dtype="bf16"),
     "attn_prio_interleave"),
    (C(waves=4, heads=4, kv_heads=2, seqlen_q=100, seqlen_k=45, head_dim=128, causal=True,
       arch="gfx950"), "attn_prio"),
    (C(waves=2, kv_buffers=3, seqlen_q=130, seqlen_k=170, dtype="bf16", causal=True,
       arch="gfx950"), "attn_prio_interleave"),
    (C(waves=2, seqlen_q=45, seqlen_k=200, head_dim=128, causal=True, kv_buffers=3), "shuffle"),
    (C(waves=4, seqlen_q=40, seqlen_k=72, dtype="bf16", arch="gfx950", mfma_k=8), "attn_interleave"),
    (C(waves=1, kv_buffers=2, seqlen_q=33, seqlen_k=77, head_dim=128, arch="gfx950"), "attn_basic"),
]


def _id(case) -> str:
    cfg, sched = case
    return f"{cfg.name}_h{cfg.heads}_q{cfg.seqlen_q}k{cfg.seqlen_k}_{sched}"


@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize("case", CASES, ids=_id)
def test_matches_reference(case, seed):
    cfg, sched = case
    ok, msg, _ = run_case(cfg, seed, sched, sched_seed=seed if sched == "shuffle" else None)
    assert ok, msg


def test_kernel_is_llvm_assembled_code_object():
    k = kernel(C(waves=4, head_dim=128, arch="gfx950"), "attn_prio")
    assert k.hsaco[:4] == b"\x7fELF"
    assert "LLVM" in k.meta["toolchain"] or "clang" in k.meta["toolchain"]
    assert k.meta["block"] == [256, 1, 1] and k.meta["grid"] == [1, 1, 1]


def test_causal_rows_of_early_waves_see_fewer_keys():
    """seqlen_q > seqlen_k, causal, 4 waves: the workgroup's last row sets the trip count; the
    first 70 - 20 = 50 rows (waves 0 and part of 1) see no key: O = 0, LSE = -inf."""
    cfg = C(waves=4, seqlen_q=70, seqlen_k=20, causal=True)
    ok, msg, out = run_case(cfg, 0, "attn_prio")
    assert ok, msg
    lse = np.asarray(out["LSE"])
    assert np.all(np.isneginf(lse[0, 0, :50])) and np.all(np.isfinite(lse[0, 0, 50:]))
    assert np.all(np.asarray(out["O"], np.float64)[0, 0, :50] == 0.0)


@pytest.mark.parametrize("sq,sk", [(200, 65), (3, 140)])
def test_lengths_are_runtime_arguments(sq, sk):
    cfg = C(waves=2, heads=2, kv_heads=1, seqlen_q=64, seqlen_k=96, causal=True)
    ok, msg, _ = run_case(cfg, 3, "attn_prio", seqlen_q=sq, seqlen_k=sk)
    assert ok, msg


@pytest.mark.parametrize("arch,dma,lane_bytes", [("gfx942", "buffer_load_dword", 4),
                                                  ("gfx950", "buffer_load_dwordx4", 16)])
def test_loop_shares_kv_through_lds(arch, dma, lane_bytes):
    """K arrives by LDS-DMA (buffer_load_dword ... lds; dwordx4 on gfx950), V by transposed
    ds_writes; every MFMA operand but Q is read from LDS (ds_read_b128: two x8 k-steps or one
    x16 k-step of K, V^T); one s_barrier per iteration; no K load into VGPRs."""
    cfg = C(waves=2, head_dim=128, arch=arch)
    body = [n.instr for n in steady_body(kernel(cfg, "attn_prio"))]
    ops = [i.op for i in body]
    loads = [i for i in body if i.op == dma and dict(i.mods).get("lds")]
    assert len(loads) == 32 * 256 // (64 * lane_bytes) // 2   # 8 KiB K block / chunk / 2 waves
    v_rows = [i for i in body if i.op == "buffer_load_dwordx4" and not dict(i.mods).get("lds")]
    assert len(v_rows) == 4                           # this wave's V rows (1 item x 4 keys)
    assert ops.count("ds_read_b128") == 128 // 16 + 2 * 128 // 32   # K pairs/steps + V^T
    assert "ds_read_b64" not in ops
    assert ops.count("ds_write_b64") == 8
    assert ops.count("s_barrier") == 1
    n_qk, n_pv = 128 // cfg.mfma_k, (32 // cfg.mfma_k) * (128 // 32)
    assert sum(op.startswith("v_mfma") for op in ops) == n_qk + n_pv


def _no_barrier_kernel(cfg):
    import asmgen.kinds.attention.template as ta
    from asmgen.api import compile_attention, get_attention_recipe
    orig = ta.build_attention

    def build(c):
        k = orig(c)
        for b in ir_loop_blocks(k):
            b.nodes = [n for n in b.nodes if n.instr.op != "s_barrier"]
        return k
    ta.build_attention = build
    try:
        return compile_attention(cfg, get_attention_recipe("attn_basic"))
    finally:
        ta.build_attention = orig


@pytest.mark.parametrize("seed", [0, 1])
def test_deleting_the_barrier_is_an_lds_race(seed):
    """Without the loop's s_barrier a wave overwrites (LDS-DMA) a buffer another wave still
    reads: the emulator's race detector must say so; with it the same kernel is clean."""
    from asmgen.api import EmuRunner
    from asmgen.kinds.attention.reference import attention_random_inputs
    from isa.emu.errors import LdsRaceError, PendingReadError
    cfg = C(waves=2, seqlen_q=64, seqlen_k=128)
    inp = attention_random_inputs(cfg, seed)
    outs = {"O": np.zeros((1, 1, 64, 64), inp["Q"].dtype), "LSE": np.zeros((1, 1, 64), np.float32)}
    bad = _no_barrier_kernel(cfg)
    assert "s_barrier" not in [n.instr.op for n in bad.compiled.stream.body]
    with pytest.raises((LdsRaceError, PendingReadError)):
        EmuRunner(copy.deepcopy(bad.meta), bad.hsaco, seed=seed)(**inp, **copy.deepcopy(outs))
    ok, msg, _ = run_case(cfg, seed)
    assert ok, msg


@pytest.mark.parametrize("kw,needle", [
    ({"waves": 3}, "waves=3"), ({"kv_buffers": 4, "waves": 2}, "kv_buffers=4"),
    ({"waves": 2, "kv_buffers": 1}, "kv_buffers=1"),
    ({"waves": 2, "prefetch": 0}, "prefetch=0"),
])
def test_config_errors(kw, needle):
    with pytest.raises(ConfigError, match=needle):
        C(**kw)


def test_lds_limit_names_value_and_limit(monkeypatch):
    """The LDS check names the bytes, the knob and the arch's limit (65536 on gfx942)."""
    from asmgen.target import Target
    real = Target.lds_limit
    monkeypatch.setattr(Target, "lds_limit",
                        property(lambda t: 40000 if t.arch == "gfx942" else real.fget(t)))
    with pytest.raises(ConfigError, match=r"kv_buffers=3.*40000 bytes of gfx942"):
        C(waves=2, kv_buffers=3, head_dim=128)
    assert C(waves=2, kv_buffers=3, head_dim=128, arch="gfx950").lds_bytes <= 163840


def test_cli_waves_contract_and_check(tmp_path):
    import json

    from asmgen.cli import main
    rc = main(["attention", "--batch", "1", "--heads", "2", "--kv-heads", "1", "--seqlen-q", "70",
               "--seqlen-k", "40", "--head-dim", "64", "--causal", "--waves", "2",
               "--kv-buffers", "3", "--schedule", "attn_prio", "-o", str(tmp_path)])
    assert rc == 0
    path = next(tmp_path.glob("*.json"))
    meta = json.loads(path.read_text())
    assert meta["config"]["waves"] == 2 and meta["config"]["kv_buffers"] == 3
    assert meta["grid"] == [2, 1, 2] and meta["block"] == [128, 1, 1]
    assert meta["lds_bytes"] == 3 * 8192 and meta["schedule"] == "attn_prio"
    assert main(["check", str(path), "--seed", "1"]) == 0


def test_defaults_and_grid():
    c = C(seqlen_q=300, waves=4)
    assert c.kv_buffers == 2 and c.threads == 256 and c.rows_per_wg == 128
    assert c.grid == (3, 1, 1)
    assert C().kv_buffers == 1 and C().grid == (4, 1, 1)


@pytest.mark.parametrize("schedule", ["attn_prio", "attn_prio_interleave"])
def test_setprio_per_cluster(schedule):
    """s_setprio 1 before the first QK MFMA, 0 after the last QK MFMA (before the softmax), 1
    again before the first PV MFMA, 0 after the last one. attn_prio runs the whole softmax at
    priority 0; attn_prio_interleave may start the PV cluster under the softmax tail (PV k-step
    0 needs only the first keys' P)."""
    k = kernel(C(waves=2, head_dim=128), schedule)
    body = steady_body(k)
    sp = [(i, str(n.instr)) for i, n in enumerate(body) if n.instr.op == "s_setprio"]
    assert [s for _, s in sp] == ["s_setprio 1", "s_setprio 0", "s_setprio 1", "s_setprio 0"]
    qk = [i for i, n in enumerate(body) if "mfma_qk" in n.tags]
    pv = [i for i, n in enumerate(body) if "mfma_pv" in n.tags]
    ex = [i for i, n in enumerate(body) if n.instr.op == "v_exp_f32"]
    assert sp[0][0] < qk[0] and qk[-1] < sp[1][0] < ex[0]
    assert ex[0] < sp[2][0] < pv[0] and pv[-1] < sp[3][0]
    if schedule == "attn_prio":
        assert sp[1][0] == qk[-1] + 1 and ex[-1] < sp[2][0]


def test_prio_recipe_must_be_bound():
    from asmgen.api import get_attention_recipe
    r = get_attention_recipe("attn_prio_interleave", mem_per_mfma=3)
    with pytest.raises(ConfigError, match="bind"):
        r.for_block("loop")
    b = r.bind(C(waves=2, head_dim=128))
    sizes = {tuple(sorted(g.mask)): g.count for g in b.for_block("loop").groups}
    assert sizes[("mfma_qk",)] == 16 and sizes[("mfma_pv",)] == 16 and sizes[("mfma",)] == 1
    with pytest.raises(ConfigError, match="mem_per_mfma=0"):
        get_attention_recipe("attn_prio_interleave", mem_per_mfma=0)


def test_prio_recipes_on_one_wave_register_loop():
    """Bound to a kv_buffers = 1 config the prio recipes fall back to the setprio pair."""
    ok, msg, _ = run_case(C(seqlen_q=40, seqlen_k=50, head_dim=128), 0, "attn_prio_interleave")
    assert ok, msg


WIDE = [
    C(heads=h, kv_heads=hk, seqlen_q=sq, seqlen_k=sk, head_dim=d, dtype=dt, causal=c, arch=a,
      waves=w, kv_buffers=nb)
    for a, dt, d, c, (h, hk), (sq, sk), (w, nb) in itertools.product(
        ("gfx942", "gfx950"), ("f16", "bf16"), (64, 128), (False, True), ((1, 1), (4, 2)),
        ((1, 1), (77, 77), (130, 45), (33, 250)), ((2, 2), (4, 2), (4, 3)))
]


@pytest.mark.slow
@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize("cfg", WIDE, ids=lambda c: f"{c.name}_h{c.heads}q{c.seqlen_q}k{c.seqlen_k}")
def test_wide_matrix(cfg, seed):
    ok, msg, _ = run_case(cfg, seed, "attn_prio_interleave" if seed else "attn_prio")
    assert ok, msg
