"""Fixtures of the isa tests: where LLVM 22 lives, and helpers that run llvm-mc / llvm-objdump / llc.

Looks for ``llvm-mc-22`` on PATH, then /usr/lib/llvm-22/bin (plain ``llvm-mc`` on this machine is
LLVM 14, too old). The llvm-mc / llvm-objdump text helpers live in tests/isa/llvm_text.py
(a module of its own: ``from conftest import`` finds another directory's conftest when several
test folders are collected in one run).
"""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest

LLVM22_DIRS = ("/usr/lib/llvm-22/bin",)


def find_llvm_tool(name: str) -> str | None:
    """Path of an LLVM 22 tool (``llvm-mc``, ``llvm-objdump``, ``llc``, ``clang``) or None."""
    found = shutil.which(f"{name}-22")
    if found:
        return found
    for d in LLVM22_DIRS:
        p = Path(d) / name
        if p.exists():
            return str(p)
    return None


def _tool(name: str) -> str:
    path = find_llvm_tool(name)
    if path is None:
        pytest.skip(f"LLVM 22 {name} not found (looked for {name}-22 on PATH and in {LLVM22_DIRS})")
    return path


@pytest.fixture(scope="session")
def llvm_mc() -> str:
    return _tool("llvm-mc")


@pytest.fixture(scope="session")
def llvm_objdump() -> str:
    return _tool("llvm-objdump")


@pytest.fixture(scope="session")
def llc() -> str:
    return _tool("llc")


@pytest.fixture(scope="session")
def clang() -> str:
    return _tool("clang")
