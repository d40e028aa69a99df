"""The default run's sample of the ``--runslow`` matrices (tests/conftest.py): a fixed hash of
the node id, so a shard is the same in every run, and the n shards partition the matrix."""
import pytest

from tests.conftest import in_shard, slow_shard

IDS = [f"tests/gemm/test_gemm_emu.py::test_gemm_wide[{i}-case{j}]" for i in (0, 1) for j in range(200)]


def test_shards_partition_the_matrix():
    shards = [[t for t in IDS if in_shard(t, (i, 8))] for i in range(8)]
    assert sorted(t for s in shards for t in s) == sorted(IDS)      # each id in exactly one
    assert all(10 <= len(s) <= 90 for s in shards)                   # roughly one in eight
    assert shards[3] == [t for t in IDS if in_shard(t, (3, 8))]      # reproducible


@pytest.mark.parametrize("text, want", [("", (0, 8)), ("3/8", (3, 8)), ("0/1", (0, 1)),
                                        ("off", None)])
def test_env_selects_the_shard(monkeypatch, text, want):
    monkeypatch.setenv("ASMGEN_SLOW_SHARD", text)
    assert slow_shard() == want


@pytest.mark.parametrize("text", ["8/8", "x", "1/2/3", "-1/4"])
def test_bad_env_is_a_usage_error(monkeypatch, text):
    monkeypatch.setenv("ASMGEN_SLOW_SHARD", text)
    with pytest.raises(pytest.UsageError, match="ASMGEN_SLOW_SHARD"):
        slow_shard()
