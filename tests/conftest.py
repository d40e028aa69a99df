"""Suite-wide test options: ``--runslow`` selects long matrices and fuzz campaigns (without it one
fixed shard of them runs, ``ASMGEN_SLOW_SHARD=i/n``, default 0/8), ``--update-golden``
rewrites the per-stage goldens of tests/golden; the kernel
cache goes to a per-session temporary folder so test runs never touch ``~/.cache``."""
from __future__ import annotations

import os
import zlib

import pytest

# The one skip CI accepts: GPU tests on a machine without a ROCm GPU (tests/gpu).
ALLOWED_SKIP_IN_CI = "no ROCm GPU found"
_skipped: list[tuple[str, str]] = []


def pytest_addoption(parser):
    parser.addoption("--runslow", action="store_true", default=False,
                     help="also run tests marked slow (wide GEMM/attention matrices, long fuzz runs)")
    parser.addoption("--update-golden", action="store_true", default=False,
                     help="rewrite the per-stage golden files of tests/golden instead of comparing")


SLOW_SHARD_ENV = "ASMGEN_SLOW_SHARD"
DEFAULT_SLOW_SHARD = (0, 8)


def slow_shard() -> tuple[int, int] | None:
    """(i, n) of ``ASMGEN_SLOW_SHARD=i/n`` (default 0/8); ``off`` (or 0/0) runs no slow case."""
    text = os.environ.get(SLOW_SHARD_ENV, "").strip()
    if not text:
        return DEFAULT_SLOW_SHARD
    if text.lower() in ("off", "0/0"):
        return None
    try:
        i, n = (int(x) for x in text.split("/"))
    except ValueError:
        raise pytest.UsageError(f"{SLOW_SHARD_ENV}={text!r} is not i/n (e.g. 3/8) or off") from None
    if not 0 <= i < n:
        raise pytest.UsageError(f"{SLOW_SHARD_ENV}={text!r}: need 0 <= i < n")
    return i, n


def in_shard(nodeid: str, shard: tuple[int, int]) -> bool:
    """Whether a test belongs to shard i of n: a fixed hash of its node id (crc32, the same in
    every run and on every machine), so a shard is reproducible and the n shards together are
    the whole slow matrix."""
    i, n = shard
    return zlib.crc32(nodeid.encode()) % n == i


def pytest_collection_modifyitems(config, items):
    """Tests marked ``slow`` are deselected (not skipped) unless --runslow is given, except one
    shard of them (``slow_shard``: one case in eight by default, ``ASMGEN_SLOW_SHARD=i/n`` picks
    another), so every default run also exercises a fixed sample of the long matrices and the
    shards 0..n-1 cover all of them."""
    if config.getoption("--runslow"):
        return
    shard = slow_shard()
    drop = [item for item in items if item.get_closest_marker("slow")
            and (shard is None or not in_shard(item.nodeid, shard))]
    if drop:
        config.hook.pytest_deselected(items=drop)
        dropped = set(map(id, drop))
        items[:] = [item for item in items if id(item) not in dropped]


@pytest.fixture(autouse=True, scope="session")
def _isolated_kernel_cache(tmp_path_factory):
    mp = pytest.MonkeyPatch()
    mp.setenv("ASMGEN_CACHE_DIR", str(tmp_path_factory.mktemp("asmgen-cache")))
    # the cache is on by default for users; tests build fresh (many patch generator internals)
    # unless they ask for it (cache=True, the cache tests, or ASMGEN_NO_CACHE removed)
    mp.setenv("ASMGEN_NO_CACHE", "1")
    yield
    mp.undo()


def pytest_runtest_logreport(report):
    if report.skipped:
        reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else str(report.longrepr)
        _skipped.append((report.nodeid, reason))


def pytest_sessionfinish(session, exitstatus):
    """Under CI (CI=true, as .ci/run runs) a skip for a missing tool would hide a whole path
    (llvm-22, clang-22, llvm-objdump, ziglang are installed there), so every skip but the GPU
    one fails the run, listing what was skipped and why."""
    if not os.environ.get("CI"):
        return
    bad = [(node, why) for node, why in _skipped if ALLOWED_SKIP_IN_CI not in why]
    if bad:
        lines = "\n".join(f"  {node}: {why}" for node, why in bad[:30])
        print(f"\nCI: {len(bad)} test(s) skipped for a reason other than a missing GPU:\n{lines}")
        session.exitstatus = 1
