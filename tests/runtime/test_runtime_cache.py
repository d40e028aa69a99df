"""The on-disk kernel cache: folder resolution, key stability, hit/miss, corruption detected and
rebuilt (with a warning naming the path), atomic publication with concurrent builders, ls/clear."""
import multiprocessing as mp
import os
import time
from pathlib import Path

import pytest

from asmgen import __version__
from asmgen import cache as C
from asmgen.runtime.errors import CacheCorruptWarning, CacheError

PARTS = C.key_parts("gemm", {"m": 64, "n": 64, "tile": (64, 64, 32)}, {"name": "pgr1", "params": {"prefetch": 1}},
                    "gfx942", "Debian LLVM version 22.1.8")
ARTS = {"k.s": "s_endpgm\n", "k.hsaco": b"\x7fELF" + bytes(range(256)), "k.json": b'{"kernel": "k"}'}


def test_cache_dir_resolution(monkeypatch, tmp_path):
    monkeypatch.setenv("ASMGEN_CACHE_DIR", str(tmp_path / "explicit"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert C.cache_dir() == tmp_path / "explicit"
    monkeypatch.delenv("ASMGEN_CACHE_DIR")
    assert C.cache_dir() == tmp_path / "xdg" / "asmgen"
    monkeypatch.delenv("XDG_CACHE_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert C.cache_dir() == tmp_path / "home" / ".cache" / "asmgen"


def test_key_is_canonical_and_covers_every_part():
    k = C.cache_key(PARTS)
    assert len(k) == 64 and int(k, 16) >= 0
    assert PARTS["asmgen"] == C.asmgen_version()
    assert PARTS["asmgen"].startswith(__version__ + "+") and len(PARTS["asmgen"]) == len(__version__) + 17
    reordered = {key: PARTS[key] for key in reversed(list(PARTS))}
    reordered["config"] = {"tile": [64, 64, 32], "n": 64, "m": 64}          # list == tuple, order free
    assert C.cache_key(reordered) == k
    for field, value in [("kind", "attention"), ("arch", "gfx950"), ("toolchain", "LLVM version 21.1.0"),
                         ("asmgen", "9.9.9"), ("recipe", {"name": "pgr2", "params": {"prefetch": 2}}),
                         ("config", {"m": 128, "n": 64, "tile": [64, 64, 32]})]:
        assert C.cache_key(PARTS | {field: value}) != k, field
    with pytest.raises(CacheError, match="not plain JSON data"):
        C.cache_key(PARTS | {"config": {"x": object()}})
    with pytest.raises(CacheError, match="not plain JSON data"):
        C.cache_key(PARTS | {"config": {"x": float("nan")}})


def test_miss_then_hit(cache_root):
    calls = []

    def build():
        calls.append(1)
        return ARTS

    arts, hit = C.cached(PARTS, build)
    assert not hit and calls == [1]
    assert arts["k.s"] == b"s_endpgm\n" and arts["k.hsaco"] == ARTS["k.hsaco"]
    arts2, hit2 = C.cached(PARTS, build)
    assert hit2 and calls == [1] and arts2 == arts
    assert list(cache_root.iterdir()) == [cache_root / f"{C.cache_key(PARTS)}.entry"]
    _, hit3 = C.cached(PARTS | {"arch": "gfx950"}, build)
    assert not hit3 and calls == [1, 1]


@pytest.mark.parametrize("damage,problem", [
    (lambda d: d[:-1] + bytes([d[-1] ^ 0x01]), "checksum mismatch"),
    (lambda d: d[: len(d) // 2], "checksum mismatch"),
    (lambda d: b"garbage", "no 'ASMGEN-CACHE 1' header"),
    (lambda d: b"", "no 'ASMGEN-CACHE 1' header"),
])
def test_corrupt_entry_is_reported_and_rebuilt(cache_root, damage, problem):
    C.cached(PARTS, lambda: ARTS)
    path = C.entry_path(C.cache_key(PARTS))
    path.write_bytes(damage(path.read_bytes()))
    (entry,) = C.cache_ls()
    assert not entry.valid and problem in entry.problem
    rebuilt = []
    with pytest.warns(CacheCorruptWarning) as rec:
        arts, hit = C.cached(PARTS, lambda: rebuilt.append(1) or ARTS)
    assert not hit and rebuilt == [1]
    assert str(path) in str(rec[0].message) and problem in str(rec[0].message)
    assert rec[0].filename == __file__                          # points at the caller
    assert C.cached(PARTS, lambda: 1 / 0) == (arts, True)        # the rebuilt entry is whole again
    assert all(e.valid for e in C.cache_ls())


def test_entry_under_another_key_name_is_corrupt(cache_root):
    C.cached(PARTS, lambda: ARTS)
    other = PARTS | {"arch": "gfx950"}
    os.replace(C.entry_path(C.cache_key(PARTS)), C.entry_path(C.cache_key(other)))
    with pytest.warns(CacheCorruptWarning, match="is not the file's"):
        _, hit = C.cached(other, lambda: ARTS)
    assert not hit


def test_bad_builds_and_unwritable_folder(tmp_path):
    with pytest.raises(CacheError, match="artifact name '../x' must be a plain file name"):
        C.cached(PARTS, lambda: {"../x": b""}, root=tmp_path)
    with pytest.raises(CacheError, match="artifact 'a' is int, not bytes or str"):
        C.cached(PARTS, lambda: {"a": 1}, root=tmp_path)
    with pytest.raises(CacheError, match="non-empty dict"):
        C.cached(PARTS, dict, root=tmp_path)
    blocker = tmp_path / "file"
    blocker.write_text("x")
    with pytest.raises(CacheError, match=f"cannot write to the kernel cache folder {blocker}/sub"):
        C.cached(PARTS, lambda: ARTS, root=blocker / "sub")


def test_ls_and_clear(cache_root):
    assert C.cache_ls() == [] and C.cache_clear() == 0
    C.cached(PARTS, lambda: ARTS)
    C.cached(PARTS | {"kind": "attention"}, lambda: {"a.s": "x"})
    keep = cache_root / "README"
    keep.write_text("not ours")
    stale = cache_root / ".tmp-deadbeef-xyz"
    stale.write_bytes(b"half")
    os.utime(stale, (time.time() - 3600, time.time() - 3600))
    fresh = cache_root / ".tmp-cafe-abc"
    fresh.write_bytes(b"in flight")
    entries = C.cache_ls()
    assert sorted(e.kind for e in entries) == ["attention", "gemm"]
    assert {e.files for e in entries} == {("k.s", "k.hsaco", "k.json"), ("a.s",)}
    assert C.cache_clear() == 3
    assert sorted(p.name for p in cache_root.iterdir()) == [".tmp-cafe-abc", "README"]


def _builder(root, barrier, queue, delay):
    barrier.wait()

    def build():
        time.sleep(delay)
        return ARTS | {"who": str(os.getpid())}

    arts, hit = C.cached(PARTS, build, root=root)
    queue.put((os.getpid(), hit, sorted(arts), arts["k.hsaco"] == ARTS["k.hsaco"]))


def test_concurrent_builders_leave_one_valid_entry(tmp_path):
    ctx = mp.get_context("fork")
    n = 4
    barrier, queue = ctx.Barrier(n), ctx.Queue()
    procs = [ctx.Process(target=_builder, args=(str(tmp_path), barrier, queue, 0.2)) for _ in range(n)]
    for p in procs:
        p.start()
    results = [queue.get(timeout=60) for _ in procs]
    for p in procs:
        p.join(timeout=60)
        assert p.exitcode == 0
    assert all(ok and names == ["k.hsaco", "k.json", "k.s", "who"] for _, _, names, ok in results)
    assert sum(not hit for _, hit, _, _ in results) == 1       # one built, the others waited (lock)
    files = sorted(Path(tmp_path).iterdir())
    assert files == [C.entry_path(C.cache_key(PARTS), tmp_path)]   # one entry, no temporary file left
    arts, hit = C.cached(PARTS, lambda: 1 / 0, root=tmp_path)
    assert hit and int(arts["who"]) in {pid for pid, _, _, _ in results}


def _timed_builder(root, barrier, queue, parts):
    barrier.wait()

    def build():
        t0 = time.monotonic()
        time.sleep(1.0)
        return ARTS | {"t": f"{t0} {time.monotonic()}"}

    arts, hit = C.cached(parts, build, root=root)
    queue.put((hit, arts["t"].decode()))


def test_builders_of_different_keys_do_not_wait_for_each_other(tmp_path):
    """The lock is per key: two 1 s builds of different keys overlap in time (with one lock for the
    whole folder the second would start after the first ended); no lock file is left behind."""
    ctx = mp.get_context("fork")
    barrier, queue = ctx.Barrier(2), ctx.Queue()
    keys = [PARTS, PARTS | {"arch": "gfx950"}]
    procs = [ctx.Process(target=_timed_builder, args=(str(tmp_path), barrier, queue, k)) for k in keys]
    for p in procs:
        p.start()
    results = [queue.get(timeout=60) for _ in procs]
    for p in procs:
        p.join(timeout=60)
        assert p.exitcode == 0
    assert not any(hit for hit, _ in results)
    spans = [tuple(map(float, t.split())) for _, t in results]
    assert max(s for s, _ in spans) < min(e for _, e in spans), spans      # they overlapped
    assert sorted(p.name for p in Path(tmp_path).iterdir()) == sorted(
        C.entry_path(C.cache_key(k), tmp_path).name for k in keys)


def test_clear_removes_a_lock_file_a_killed_builder_left(tmp_path):
    stale = tmp_path / f"{C.LOCK_PREFIX}{C.cache_key(PARTS)}"
    stale.write_bytes(b"")
    os.utime(stale, (time.time() - 3600, time.time() - 3600))
    assert C.cache_clear(tmp_path) == 1 and not stale.exists()
    arts, hit = C.cached(PARTS, lambda: ARTS, root=tmp_path)      # the key still builds
    assert not hit and sorted(p.name for p in tmp_path.iterdir()) == [
        C.entry_path(C.cache_key(PARTS), tmp_path).name]


def test_cached_kernel_round_trip(cache_root, gemm_kernel):
    parts = C.key_parts("gemm", gemm_kernel.config.to_dict(), {"name": "pgr1"}, "gfx942",
                        gemm_kernel.meta["toolchain"])
    k1, hit1 = C.cached_kernel(parts, lambda: gemm_kernel, config=gemm_kernel.config)
    assert not hit1 and k1 is gemm_kernel
    k2, hit2 = C.cached_kernel(parts, lambda: 1 / 0, config=gemm_kernel.config)
    assert hit2 and k2 is not gemm_kernel
    assert (k2.name, k2.asm, k2.hsaco, k2.meta) == (k1.name, k1.asm, k1.hsaco, k1.meta)
    assert k2.config is gemm_kernel.config
    out = cache_root / "saved"
    k2.save(out)
    assert (out / f"{k2.name}.hsaco").read_bytes() == gemm_kernel.hsaco


def test_recipe_desc():
    from schedules import get_recipe
    assert C.recipe_desc(get_recipe("pgr1"))["name"] == "pgr1"
    assert C.recipe_desc(get_recipe("pgr2", lr_per_mfma=3))["params"]["lr_per_mfma"] == 3
    assert C.recipe_desc(None) is None


def test_cli_cache_ls_clear(cache_root, capsys):
    from asmgen.cli import main
    C.cached(PARTS, lambda: ARTS)
    assert main(["cache", "ls"]) == 0
    out = capsys.readouterr().out
    assert f"# {cache_root}: 1 entries" in out and C.cache_key(PARTS)[:16] in out and "k.hsaco" in out
    assert main(["cache", "clear"]) == 0
    assert "removed 1 files" in capsys.readouterr().out
    assert C.cache_ls() == []


def test_cached_gemm(cache_root):
    k1, hit1 = C.cached_gemm(64, 64, 32, dtype="f16")
    k2, hit2 = C.cached_gemm(m=64, n=64, k=32, tile=[64, 64, 32])          # same call, spelled differently
    assert (hit1, hit2) == (False, True)
    assert (k2.name, k2.asm, k2.hsaco, k2.meta) == (k1.name, k1.asm, k1.hsaco, k1.meta)
    assert k2.config == k1.config
    k3, hit3 = C.cached_gemm(64, 64, 32, schedule="pgr2")
    assert not hit3 and k3.meta["schedule"] == "pgr2"
    assert len(C.cache_ls()) == 2


# -- start-up memos in the cache folder (a cache hit starts no subprocess, reads no source) --------
def test_toolchain_version_memo(tmp_path, monkeypatch):
    import json
    import subprocess

    from asmgen import toolchain as T
    real = T.find_toolchain().version
    assert T.toolchain_version(tmp_path) == real
    memo = next(tmp_path.glob(".toolchain-*.json"))

    def no_process(*a, **k):
        raise AssertionError("a subprocess was started")
    T.clear_cache()
    monkeypatch.setattr(subprocess, "run", no_process)
    assert T.toolchain_version(tmp_path) == real             # from the memo alone
    monkeypatch.undo()
    saved = json.loads(memo.read_text())
    saved["witness"][-1][1] += 1                              # the assembler "changed"
    saved["version"] = "stale"
    memo.write_text(json.dumps(saved))
    assert T.toolchain_version(tmp_path) == real             # rediscovered, memo rewritten
    assert json.loads(memo.read_text())["version"] == real


def test_source_fingerprint_memo(tmp_path):
    import json
    plain = C.asmgen_version.__wrapped__(None)
    assert C.asmgen_version.__wrapped__(str(tmp_path)) == plain
    memo = next(tmp_path.glob(".sources-*.json"))
    saved = json.loads(memo.read_text())
    rel = "asmgen/cache.py"
    saved[rel][2] = "0" * 64                                 # same mtime/size: the memo is trusted
    memo.write_text(json.dumps(saved))
    assert C.asmgen_version.__wrapped__(str(tmp_path)) != plain
    saved[rel][0] -= 1                                        # another mtime: the file is re-read
    memo.write_text(json.dumps(saved))
    assert C.asmgen_version.__wrapped__(str(tmp_path)) == plain


def test_stale_toolchain_memo_never_files_a_kernel_under_the_wrong_version(tmp_path, monkeypatch):
    from asmgen import toolchain as T
    monkeypatch.setattr(T, "toolchain_version", lambda memo_dir=None, kind=None: "LLVM version 0.0")
    kw = dict(m=64, n=64, k=32, tile=(32, 32, 16), waves=(1, 1))
    kern, hit = C.cached_generate("gemm", root=tmp_path, **kw)
    assert not hit and kern.hsaco
    monkeypatch.undo()
    [entry] = C.cache_ls(tmp_path)
    kern2, hit2 = C.cached_generate("gemm", root=tmp_path, **kw)     # the true version's key
    assert hit2 and kern2.hsaco == kern.hsaco
