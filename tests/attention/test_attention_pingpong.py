"""The 8-wave ping-pong attention loop (``kinds.attention.pingpong``, recipe ``attn_pingpong``):
LLVM-assembled kernels on the emulator vs the float64 reference (two seeds, both arches, causal
and not, lengths off the block size, GQA), the loop's shape (two barriers per body, the group
offset barriers, an MFMA phase of MFMAs only), its config limits, the fuzz strategy and the
mutation proof.

Default run: four cases x two seeds, one fp8 and one varlen case; ``--runslow`` adds the cross
product, the other fp8/varlen seeds, other recipes and the mutation proof of the proof kernel."""
from __future__ import annotations

import itertools
import re

import pytest
from attn_util import kernel, run_case

from asmgen.errors import ConfigError
from asmgen.kinds.attention.config import AttentionConfig

C = AttentionConfig
PP = "attn_pingpong"
D128 = {"waves": 8, "head_dim": 128}
CASES = [
    # causal GQA, unaligned lengths, seqlen_k > seqlen_q (waves 0..7 skip different blocks)
    C(**D128, heads=2, kv_heads=1, seqlen_q=77, seqlen_k=140, causal=True, dtype="bf16"),
    # gfx950 (x16 MFMA, dwordx4 DMA, permlane32 swap), not causal, key mask on the last block
    C(**D128, arch="gfx950", seqlen_q=100, seqlen_k=130, dtype="f16"),
    # gfx950 causal, aligned: the triangle body, seqlen_q > seqlen_k (rows that see no key)
    C(**D128, arch="gfx950", seqlen_q=96, seqlen_k=64, causal=True, dtype="bf16"),
    # whole key blocks promised: the unmasked body only; one key block (trips = 1)
    C(**D128, seqlen_q=33, seqlen_k=32, seqlen_k_multiple=32),
]


def _id(cfg) -> str:
    return f"{cfg.name}_h{cfg.heads}_q{cfg.seqlen_q}k{cfg.seqlen_k}"


@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize("cfg", CASES, ids=_id)
def test_matches_reference(cfg, seed):
    ok, msg, _ = run_case(cfg, seed, PP)
    assert ok, msg


WIDE = [C(**D128, arch=a, dtype=dt, causal=c, heads=h, kv_heads=kvh, seqlen_q=sq, seqlen_k=sk)
        for a, dt, c, (h, kvh), (sq, sk) in itertools.product(
            ("gfx942", "gfx950"), ("f16", "bf16"), (False, True), ((1, 1), (4, 2)),
            ((1, 1), (255, 257), (300, 200)))]


@pytest.mark.slow
@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize("cfg", WIDE, ids=_id)
def test_matches_reference_wide(cfg, seed):
    ok, msg, _ = run_case(cfg, seed, PP)
    assert ok, msg


@pytest.mark.slow
@pytest.mark.parametrize("sched", ["attn_basic", "attn_prio_interleave", "fuzz"])
def test_any_recipe_stays_correct(sched):
    """The barriers fence every LDS op, so a recipe that does not pin the phases is slower,
    never wrong (schedule fuzzing relies on it)."""
    cfg = C(**D128, seqlen_q=70, seqlen_k=150, causal=True)
    ok, msg, _ = run_case(cfg, 1, sched, sched_seed=3 if sched == "fuzz" else None)
    assert ok, msg


def _loop_body(text: str) -> list[str]:
    body = text.split("\nloop_kv:", 1)[1].split("s_cbranch_scc1 loop_kv\n", 1)[0]
    return [ln.split(";")[0].strip() for ln in body.splitlines() if ln.split(";")[0].strip()]


def test_loop_shape_and_assembly():
    """LLVM assembles it; the unmasked body: two s_barriers, s_setprio 1 .. 0 holding the 16 QK
    and 16 PV MFMAs (gfx942 x8, D128) with nothing but waits between them, the softmax and
    every memory op after the mid barrier; the group offset barriers around the loop."""
    k = kernel(C(**D128, seqlen_q=256, seqlen_k=256, seqlen_k_multiple=32), PP)
    assert k.hsaco[:4] == b"\x7fELF"
    assert "LLVM" in k.meta["toolchain"] or "clang" in k.meta["toolchain"]
    assert k.meta["block"] == [512, 1, 1] and k.meta["lds_bytes"] == 3 * 16384
    body = _loop_body(k.asm)
    ops = [ln.split()[0] for ln in body]
    assert ops.count("s_barrier") == 2
    hi, lo, mid = ops.index("s_setprio"), len(ops) - 1 - ops[::-1].index("s_setprio"), \
        ops.index("s_barrier")
    phase = [o for o in ops[hi + 1:lo] if o != "s_waitcnt"]
    assert phase == ["v_mfma_f32_32x32x8_f16"] * 32
    assert lo < mid
    after = ops[mid + 1:]
    assert "v_exp_f32" in after and "ds_read_b128" in after and "ds_write_b16" in after
    assert sum(o == "buffer_load_dword" for o in after) == 4       # this wave's 1/8 of K
    assert len(re.findall(r"cond_barrier_skip", k.asm)) >= 2       # group 1 before, group 0 after


def test_gfx950_softmax_phase_lean():
    """gfx950 bf16, whole key blocks: the unmasked body (``loop_kv`` .. ``loop_stable``) copies
    no value into a second dword (-c mu and alpha broadcast from one pair by op_sel /
    op_sel_hi: the two v_mov_b32 left are the permlane copy and m <- m_new), forms the eight K
    read addresses from one add and three XORs (bit 7 of the XOR key in the ds_read offset),
    puts each score pair's sum and pack behind the next pair's v_exp_f32 and the K read
    addresses between the row max and the permlane swap reading it, so one s_nop remains (M0
    before the DMA, in a v_exp_f32 shadow; 7 before)."""
    k = kernel(C(**D128, arch="gfx950", dtype="bf16", seqlen_q=256, seqlen_k=256,
                 seqlen_k_multiple=32), PP)
    body = k.asm.split("\nloop_kv:", 1)[1].split("\nloop_stable:", 1)[0]
    ops = [ln.split()[0] for ln in body.splitlines() if ln.strip() and not ln.endswith(":")]
    assert ops.count("v_exp_f32") == 17 and ops.count("v_mfma_f32_32x32x16_bf16") == 16
    assert ops.count("v_mov_b32") == 2
    assert ops.count("v_xor_b32") == 3 and ops.count("ds_read_b128") == 8
    assert len(re.findall(r"ds_read_b128 v\[\d+:\d+\], v\d+ offset:128\n", body)) == 4
    assert len(re.findall(r"v_pk_fma_f32 .* op_sel_hi:\[1,1,0\]\n", body)) == 8
    assert ops.count("s_nop") <= 1


def test_config_limits():
    with pytest.raises(ConfigError, match="kv_buffers=3"):
        C(waves=8, head_dim=128, kv_buffers=2)
    with pytest.raises(ConfigError, match="head_dim=64"):
        C(waves=8, head_dim=64)
    assert C(waves=8, head_dim=128).kv_buffers == 3 and C(waves=8, head_dim=128).pingpong
    assert not C(waves=4, head_dim=128).pingpong


def test_recipe_requires_eight_waves_and_defaults_to_them():
    import asmgen
    with pytest.raises(ConfigError, match="waves"):
        asmgen.generate("attention", PP, None, waves=4, head_dim=128, seqlen_q=64,
                        seqlen_k=64, assemble=False)
    k = asmgen.generate("attention", PP, None, head_dim=128, seqlen_q=64, seqlen_k=64)
    assert k.meta["config"]["waves"] == 8 and k.meta["config"]["kv_buffers"] == 3


def test_cli_pingpong_defaults_to_eight_waves(tmp_path):
    import subprocess
    import sys
    r = subprocess.run([sys.executable, "-m", "asmgen", "attention", "--head-dim", "128",
                        "--seqlen-q", "64", "--seqlen-k", "64", "--batch", "1", "--heads", "1",
                        "--schedule", PP, "-o", str(tmp_path)], capture_output=True, text=True,
                       check=False)
    assert r.returncode == 0, r.stderr
    assert "w8b3" in r.stdout
    r = subprocess.run([sys.executable, "-m", "asmgen", "attention", "--head-dim", "64",
                        "--batch", "1", "--heads", "1", "--seqlen-q", "64", "--seqlen-k", "64",
                        "--waves", "8", "-o", str(tmp_path)], capture_output=True, text=True,
                       check=False)
    assert r.returncode == 2 and "head_dim=64" in r.stderr and "Traceback" not in r.stderr


def test_fuzz_strategy_draws_pingpong():
    from hypothesis import find, settings

    from asmgen.kinds.attention.fuzz import attention_configs
    cfg = find(attention_configs(), lambda c: c.waves == 8,
               settings=settings(max_examples=2000, database=None))
    assert cfg.pingpong and cfg.kv_buffers == 3 and cfg.head_dim == 128


def test_proof_kernels_include_pingpong():
    from asmgen.fuzz.mutate_campaign import proof_kernels
    specs = [s for s in proof_kernels("attention") if s.get("waves") == 8]
    assert specs and specs[0]["schedule"] == PP and specs[0]["causal"]


@pytest.mark.slow
def test_mutation_proof_of_pingpong_kernel():
    from asmgen.fuzz.mutate import mutate_kernel
    from asmgen.fuzz.mutate_campaign import build_proof_kernel, proof_kernels
    spec = next(s for s in proof_kernels("attention") if s.get("waves") == 8)
    r = mutate_kernel(build_proof_kernel("attention", spec), per_class=4, seed=0)
    assert r.ok(), r.text()


def test_gfx950_takes_v_by_dma_and_transposing_reads():
    """gfx950 16-bit x16: V arrives by LDS-DMA like K (2 dwordx4 DMAs per wave and block: one K,
    one V) and leaves LDS by ds_read_b64_tr_b16 (16 per block: 2 per x16 operand); the loop has
    no ds_write and no v_perm. gfx942 (no such instruction) keeps the transposing ds_writes."""
    k = kernel(C(**D128, arch="gfx950", seqlen_q=256, seqlen_k=256, seqlen_k_multiple=32), PP)
    ops = [ln.split()[0] for ln in _loop_body(k.asm)]
    assert ops.count("ds_read_b64_tr_b16") == 16 and ops.count("buffer_load_dwordx4") == 2
    assert not any(o.startswith("ds_write") or o == "v_perm_b32" for o in ops)
    k2 = kernel(C(**D128, seqlen_q=256, seqlen_k=256, seqlen_k_multiple=32), PP)
    ops2 = [ln.split()[0] for ln in _loop_body(k2.asm)]
    assert "ds_read_b64_tr_b16" not in ops2 and "ds_write_b16" in ops2


OTHER = {   # fp8 (each arch's E4M3: the byte-transposed V tile, 4-byte K DMA) and varlen
    "fp8_942_causal": C(**D128, dtype="fp8_e4m3fnuz", seqlen_q=100, seqlen_k=130, causal=True),
    "fp8_950": C(**D128, dtype="fp8_e4m3", arch="gfx950", seqlen_q=100, seqlen_k=130),
    "varlen_950_causal": C(**D128, dtype="bf16", arch="gfx950", causal=True, varlen=True,
                           batch=3, heads=2, seqlen_q=100, seqlen_k=130),
}
FAST = [("fp8_942_causal", 0), ("varlen_950_causal", 1)]
SLOW = [(n, sd) for n in sorted(OTHER) for sd in (0, 1) if (n, sd) not in FAST]


def _check_other(name, seed):
    """Through the kind's own check (``asmgen check``: the fp8 reference and tolerance, ragged
    varlen lengths drawn from the seed)."""
    import asmgen
    from asmgen.kinds import registry
    k = kernel(OTHER[name], PP)
    run = asmgen.load(k, backend="emu", seed=seed)
    ok, msg = registry.get("attention").check(k.meta, run, seed)
    assert ok, msg


@pytest.mark.parametrize("name,seed", FAST)
def test_fp8_and_varlen_match_reference(name, seed):
    _check_other(name, seed)


@pytest.mark.slow
@pytest.mark.parametrize("name,seed", SLOW)
def test_fp8_and_varlen_match_reference_wide(name, seed):
    _check_other(name, seed)
