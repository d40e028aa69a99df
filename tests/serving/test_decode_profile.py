"""``asmgen profile`` on decode contracts: the modeled time is the larger of the CU model's
makespan and the HBM floor (the bytes the problem must move at the device's achieved HBM
bandwidth), the bandwidth and tokens/s follow from it, and which one sets the time changes with
the problem as it should: 64 sequences of 4096 keys are HBM-bound, one short sequence is not."""
from __future__ import annotations

import pytest

from asmgen import api
from asmgen.cli.profile import profile
from asmgen.kinds.decode.config import DecodeConfig
from asmgen.kinds.decode.profile import decode_bytes, split_trips


def test_split_trips():
    assert split_trips(100, 1).tolist() == [4]
    assert split_trips(100, 3).tolist() == [2, 2, 1]       # 4 blocks: 2 + 2 + empty (runs once)
    assert split_trips(4096, 4).tolist() == [32] * 4


@pytest.mark.parametrize("batch, ctx, bound", [(64, 4096, "hbm"), (1, 256, "cu")])
def test_profile_time_bandwidth_and_what_sets_it(tmp_path, batch, ctx, bound):
    kern = api.generate("decode", batch=batch, heads=64, kv_heads=8, head_dim=128, dtype="bf16",
                        max_context=ctx, num_splits=1)
    path = kern.save(tmp_path)
    out = profile(path)
    assert out["kind"] == "decode" and out["time_set_by"] == bound
    assert out["cycles"] == max(out["cycles_cu_model"], out["cycles_hbm_floor"])
    moved = decode_bytes(kern.config, batch, ctx)
    assert moved["kv"] == 2 * batch * ctx * 8 * 128 * 2
    assert out["bytes"]["total"] == moved["total"]
    secs = out["cycles"] / (out["perf"]["clock_mhz"] * 1e6)
    assert out["seconds"] == pytest.approx(secs)
    assert out["achieved_tbps"] == pytest.approx(moved["total"] / secs / 1e12)
    assert out["tokens_per_second"] == pytest.approx(batch / secs)
    assert out["fraction_of_hbm_achievable"] <= 1.0 + 1e-9
    assert out["uncertainty"]["worst"] > 0


def test_profile_of_a_split_contract_adds_the_combine_launch(tmp_path):
    """Several splits: the step is the decode launch then decode_combine, both modeled; TB/s
    and tokens/s are over both; the kind's hook alone refuses to leave the combine out."""
    from asmgen.kinds.decode.combine.profile import combine_bytes
    from asmgen.kinds.decode.kind import DECODE
    from asmgen.profiling.common import ProfileError
    kern = api.generate("decode", batch=4, heads=16, kv_heads=2, head_dim=64, dtype="bf16",
                        max_context=1024, num_splits=4)
    out = profile(kern.save(tmp_path))
    comb = out["combine"]
    ccfg = DECODE.combine_config(kern.config)
    assert comb is not None and comb["cycles"] > 0
    assert comb["n_wg"] == ccfg.grid[0] * 4 == 8                # 16 rows, 8 per workgroup
    assert out["cycles"] == pytest.approx(out["cycles_decode"] + comb["cycles"])
    assert comb["bytes"] == combine_bytes(ccfg, 4) == 4 * 16 * (64 * 2 + 4) * 5
    assert out["bytes_step"] == out["bytes"]["total"] + comb["bytes"]
    secs = out["cycles"] / (out["perf"]["clock_mhz"] * 1e6)
    assert out["achieved_tbps"] == pytest.approx(out["bytes_step"] / secs / 1e12)
    assert out["tokens_per_second"] == pytest.approx(4 / secs)
    with pytest.raises(ProfileError, match="needs its decode_combine"):
        DECODE.profile(kern.meta, kern.hsaco, iters=4, device=None, wgs_per_cu=None,
                       clock_mhz=None, seed=0, keep_result=False, loop=None)


def test_profile_of_per_token_fp8_scales_counts_their_bytes(tmp_path):
    kern = api.generate("decode", batch=2, heads=8, kv_heads=2, head_dim=64, dtype="bf16",
                        max_context=512, num_splits=1, paged=True, kv_dtype="fp8_e4m3fnuz",
                        kv_scale="token")
    out = profile(kern.save(tmp_path))
    assert out["bytes"]["kv"] == 2 * 2 * 512 * 2 * 64 + 2 * 2 * 512 * 2 * 4
    assert out["combine"] is None and out["cycles"] == out["cycles_decode"]
