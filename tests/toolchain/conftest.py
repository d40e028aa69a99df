"""Fixtures for toolchain tests: each discovered toolchain kind (llvm, zig), skipped when absent."""
import pytest

from asmgen.errors import ToolchainNotFound
from asmgen.toolchain import clear_cache, find_toolchain


@pytest.fixture(params=["llvm", "zig"])
def toolchain(request, monkeypatch):
    monkeypatch.delenv("ASMGEN_TOOLCHAIN", raising=False)
    clear_cache()
    try:
        return find_toolchain(request.param)
    except ToolchainNotFound as exc:
        pytest.skip(f"no {request.param} toolchain: {exc}")
