"""Suite-wide test options: ``--runslow`` selects long matrices and fuzz campaigns, ``--update-golden``
rewrites the golden ``.s`` files; the kernel
cache goes to a per-session temporary folder so test runs never touch ``~/.cache``."""
from __future__ import annotations

import pytest


def pytest_addoption(parser):
    parser.addoption("--runslow", action="store_true", default=False,
                     help="also run tests marked slow (wide GEMM/attention matrices, long fuzz runs)")
    parser.addoption("--update-golden", action="store_true", default=False,
                     help="rewrite the golden .s files of tests/golden instead of comparing")


def pytest_collection_modifyitems(config, items):
    """Tests marked ``slow`` are deselected (not skipped) unless --runslow is given."""
    if config.getoption("--runslow"):
        return
    slow = [item for item in items if item.get_closest_marker("slow")]
    if slow:
        config.hook.pytest_deselected(items=slow)
        items[:] = [item for item in items if not item.get_closest_marker("slow")]


@pytest.fixture(autouse=True, scope="session")
def _isolated_kernel_cache(tmp_path_factory):
    mp = pytest.MonkeyPatch()
    mp.setenv("ASMGEN_CACHE_DIR", str(tmp_path_factory.mktemp("asmgen-cache")))
    yield
    mp.undo()
