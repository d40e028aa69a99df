"""The kernel cache is on by default in the API and the CLI for every kind (``cache=False``,
``--no-cache``, ``ASMGEN_NO_CACHE=1`` turn it off), and concurrent builders of one key build once
(a file lock; the others wait and read the entry)."""
from __future__ import annotations

import multiprocessing as mp
import time

import pytest

from asmgen import cache
from asmgen.api import attention, gemm
from asmgen.cli import main

SMALL = dict(tile=(32, 32, 16), waves=(1, 1))


@pytest.fixture
def cache_on(monkeypatch, tmp_path):
    monkeypatch.delenv("ASMGEN_NO_CACHE", raising=False)
    monkeypatch.setenv("ASMGEN_CACHE_DIR", str(tmp_path / "cache"))
    return tmp_path / "cache"


def test_api_uses_the_cache_by_default(cache_on):
    a = gemm(32, 32, 16, **SMALL)
    b = gemm(32, 32, 16, **SMALL)
    assert not a.cache_hit and b.cache_hit and a.asm == b.asm and a.hsaco == b.hsaco
    assert b.config == a.config
    c = attention(seqlen_q=32, seqlen_k=32)
    d = attention(seqlen_q=32, seqlen_k=32)
    assert not c.cache_hit and d.cache_hit and c.hsaco == d.hsaco
    kinds = sorted(e.kind for e in cache.cache_ls())
    assert kinds == ["attention", "gemm"]


def test_cache_off(cache_on, monkeypatch):
    gemm(32, 32, 16, **SMALL)
    assert not hasattr(gemm(32, 32, 16, cache=False, **SMALL), "cache_hit")
    monkeypatch.setenv("ASMGEN_NO_CACHE", "1")
    assert not hasattr(gemm(32, 32, 16, **SMALL), "cache_hit")
    assert gemm(32, 32, 16, cache=True, **SMALL).cache_hit


def test_cli_uses_the_cache(cache_on, tmp_path, capsys):
    argv = ["gemm", "--m", "32", "--n", "32", "--k", "16", "--tile", "32x32x16", "--waves", "1x1",
            "-o", str(tmp_path / "o")]
    assert main(argv) == 0 and "(cache hit)" not in capsys.readouterr().out
    assert main(argv) == 0 and "(cache hit)" in capsys.readouterr().out
    assert main([*argv, "--no-cache"]) == 0 and "(cache hit)" not in capsys.readouterr().out


def _builder(root: str, log: str, q) -> None:
    parts = {"kind": "test", "config": {"x": 1}}

    def build():
        with open(log, "a") as f:
            f.write("built\n")
        time.sleep(1.0)                     # long enough for every other process to wait
        return {"k.s": b"text", "k.hsaco": b"\x7fELF", "k.json": b"{}"}
    arts, hit = cache.cached(parts, build, root=root)
    q.put((sorted(arts), hit))


def test_concurrent_builders_build_once(tmp_path):
    ctx = mp.get_context("spawn")
    q = ctx.Queue()
    log = tmp_path / "builds.log"
    procs = [ctx.Process(target=_builder, args=(str(tmp_path / "c"), str(log), q)) for _ in range(4)]
    for p in procs:
        p.start()
    results = [q.get(timeout=120) for _ in procs]
    for p in procs:
        p.join(timeout=60)
    assert log.read_text().count("built") == 1
    assert sorted(hit for _, hit in results) == [False, True, True, True]
    assert all(names == ["k.hsaco", "k.json", "k.s"] for names, _ in results)
