"""One launch split into shards of workgroups, each run as its own pool in a worker process, merged
exactly (``Emulator(shards=..., processes=...)``; isa.emu.launch).

Workgroups of a launch are unordered on hardware, so a launch may run as ``n`` shards: the seeded
shuffled workgroup order cut into ``n`` contiguous pieces, each a pool of its own
(isa.emu.pool) with its own RNG (seeded from the emulator's), on a private copy of global memory
(a forked process), every check on. A shard records the bytes it wrote (isa.emu.global_sync's
write records, and every byte whose value changed) and the bytes it read
(``GlobalSync.track_reads``).

The merge. The shards did not interact when no byte one shard wrote was read or written by
another. Then no workgroup observed another shard's work, so interleaving the shards' steps in
any way gives the values each shard computed: the merged memory is the result of one order the
hardware allows for the whole launch. Every cross-workgroup check between two shards is vacuous
in one pool too: a write race, a read race and a release -> acquire edge each need a byte written
by one workgroup and touched by the other (global_sync), so checks between workgroups of one
shard, done by the shard, are all the launch has. The written bytes are copied into the
emulator's memory; a shard that stopped with an emulator error (lowest shard first) raises it
here (its partial run was checked against the others' records the same way).

When the shards did interact (a race between workgroups of two shards, or reads of what another
shard wrote), their results are dropped and the launch runs as one pool in this process from the RNG state a one-pool launch would have had: the
run of ``shards=1``, exactly (``Emulator.shard_fallbacks`` counts these). A launch of shards
gives the same bytes, steps and verdict whatever the number of processes that run them (1 runs
them one after the other, each in its own forked process).

Workgroups that communicate (a flag polled with an acquire load, atomics on one counter, a
split-K fix-up) would wait forever for a shard they cannot see: a shard stops at its first
synchronising read or write (global_sync: an sc1 load or store, an atomic, a scalar store or glc
load), the others are stopped too and the launch runs as one pool from the start, as above.
"""
from __future__ import annotations

import multiprocessing
import multiprocessing.connection
import os
import pickle
import random
import sys
import traceback
from dataclasses import dataclass, field

import numpy as np

from .errors import EmulatorError
from .pool import Pool


class _Communicates(Exception):
    """Raised in a shard at its first synchronising read or write (module doc)."""


class ShardWorkerError(RuntimeError):
    """A shard's worker process died or failed outside the emulator's checks (not a verdict)."""


@dataclass
class ShardResult:
    index: int
    steps: int = 0
    peak: int = 0
    mixed: int = 0
    allowed: dict = field(default_factory=dict)
    error: tuple | None = None      # (class, args, attributes) of the EmulatorError it stopped with
    writes: dict = field(default_factory=dict)   # allocation -> (packed written mask, values)
    reads: dict = field(default_factory=dict)    # allocation -> packed read mask


def can_fork() -> bool:
    return "fork" in multiprocessing.get_all_start_methods()


def usable_cpus() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


def split(n: int, shards: int) -> list[range]:
    """``n`` workgroup indices (of the shuffled order) cut into ``shards`` contiguous pieces."""
    base, extra = divmod(n, shards)
    out, lo = [], 0
    for s in range(shards):
        hi = lo + base + (s < extra)
        out.append(range(lo, hi))
        lo = hi
    return out


def run_sharded(emu, make, n_wg: int, cap: int, n_waves: int, shards: int, processes: int,
                progress) -> bool:
    """Run the launch's ``n_wg`` workgroups (``make(i)`` builds the machine of the i-th of the
    shuffled order) as ``shards`` shards on ``processes`` worker processes and merge them (module
    doc). Returns False when the shards interacted: nothing was changed and the caller runs the
    launch as one pool (after restoring the RNG state)."""
    pieces = split(n_wg, shards)
    emu.last_split = (shards, processes)
    seeds = [emu.rng.getrandbits(64) for _ in pieces]
    mem = emu.mem
    snapshot = [b.copy() for b in mem.bufs]          # what every shard starts from
    ctx = multiprocessing.get_context("fork")
    results: dict[int, ShardResult] = {}
    todo = list(range(len(pieces)))
    live: dict = {}                                  # connection -> (process, shard index)
    done = [0]
    try:
        while todo or live:
            while todo and len(live) < processes:
                s = todo.pop(0)
                recv, send = ctx.Pipe(duplex=False)
                p = ctx.Process(target=_worker, daemon=True,
                                args=(emu, make, pieces[s], cap, n_waves, seeds[s], s, snapshot,
                                      send))
                p.start()
                send.close()
                live[recv] = (p, s)
            for conn in multiprocessing.connection.wait(list(live)):
                p, s = live[conn]
                try:
                    kind, payload = conn.recv()
                except EOFError:
                    p.join()
                    raise ShardWorkerError(f"shard {s} worker process ended (exit code "
                                           f"{p.exitcode}) without a result") from None
                if kind == "wg":
                    done[0] += payload
                    if progress is not None:
                        progress(min(done[0], n_wg), n_wg)
                    continue
                conn.close()
                p.join()
                del live[conn]
                if kind == "crash":
                    raise ShardWorkerError(f"shard {s} failed in its worker process:\n{payload}")
                if kind == "sync":              # workgroups communicate: one pool (module doc)
                    emu.shard_fallbacks += 1
                    emu.shard_fallback_reason = f"shard {s}: {payload}"
                    return False
                results[s] = payload
    finally:
        for conn, (p, _) in live.items():
            p.terminate()
            p.join()
            conn.close()
    ordered = [results[s] for s in range(len(pieces))]
    clash = _interacted(ordered, mem)
    if clash is not None:
        emu.shard_fallbacks += 1
        emu.shard_fallback_reason = clash
        return False
    for r in ordered:
        for k, (packed, values) in r.writes.items():
            buf = mem.bufs[k]
            buf[np.unpackbits(packed, count=buf.size).view(bool)] = values
        emu.steps += r.steps
        emu.peak_workgroups = max(emu.peak_workgroups, r.peak)
        emu.mixed_group_steps += r.mixed
        for key, n in r.allowed.items():
            emu.allowed_hazards[key] = emu.allowed_hazards.get(key, 0) + n
    emu.sharded_launches += 1
    for r in ordered:
        if r.error is not None:
            raise _rebuild(r.error)
    return True


def _interacted(results: list[ShardResult], mem) -> str | None:
    """The first byte written by one shard and read or written by another, described; or None."""
    for k in range(len(mem.bufs)):
        writers = [r for r in results if k in r.writes]
        if not writers:
            continue
        n_w = None
        n_acc = None
        for r in results:
            w = r.writes.get(k)
            rd = r.reads.get(k)
            if w is None and rd is None:
                continue
            wm = None if w is None else np.unpackbits(w[0]).view(bool)
            am = np.unpackbits(rd).view(bool) if rd is not None else None
            acc = wm if am is None else (am if wm is None else am | wm)
            if wm is not None:
                n_w = wm.astype(np.uint8) if n_w is None else n_w + wm
            n_acc = acc.astype(np.uint8) if n_acc is None else n_acc + acc
        if n_w is not None:
            both = (n_w > 0) & (n_acc > 1)
            if both.any():
                return (f"byte {int(np.argmax(both))} of {mem.names[k]} is written by one shard "
                        f"and read or written by another")
    return None


def _worker(emu, make, piece: range, cap: int, n_waves: int, seed: int, index: int, snapshot,
            conn) -> None:
    """In the forked process: run one shard as a pool and send its ShardResult."""
    # the parent's buffered output stays the parent's (multiprocessing flushes the standard
    # streams when the process ends)
    sys.stdout = sys.stderr = open(os.devnull, "w")
    try:
        conn.send(("done", _run_shard(emu, make, piece, cap, n_waves, seed, index, snapshot,
                                      conn)))
    except _Communicates as exc:
        conn.send(("sync", str(exc)))
    except BaseException:       # noqa: BLE001 (reported to the parent, which raises it)
        conn.send(("crash", traceback.format_exc()))
    finally:
        conn.close()


def _run_shard(emu, make, piece: range, cap: int, n_waves: int, seed: int, index: int, snapshot,
               conn) -> ShardResult:
    emu.rng = random.Random(seed)
    emu.steps = 0
    emu.allowed_hazards = {}
    emu.mem.begin_launch(True)
    sync = emu.mem.sync
    sync.track_reads()

    def stop(what: str) -> None:
        raise _Communicates(what)
    sync.on_sync = stop
    res = ShardResult(index)
    pending_wgs = [0]

    def on_done(m) -> None:
        res.steps += m.steps
        pending_wgs[0] += 1
        if pending_wgs[0] >= 8:
            conn.send(("wg", pending_wgs[0]))
            pending_wgs[0] = 0
    pool = Pool(lambda i: make(piece[i]), len(piece), max(1, min(cap, len(piece))), n_waves,
                on_done)
    try:
        pool.run()
    except EmulatorError as exc:
        attrs = {}
        for key, val in exc.__dict__.items():      # each attribute as is when it pickles, else text
            try:
                pickle.dumps(val)
                attrs[key] = val
            except Exception:                       # noqa: BLE001
                attrs[key] = str(val)
        res.error = (type(exc), exc.args, attrs)
    if pending_wgs[0]:
        conn.send(("wg", pending_wgs[0]))
    res.peak, res.mixed, res.allowed = pool.peak, pool.mixed_steps, emu.allowed_hazards
    for k, buf in enumerate(emu.mem.bufs):
        wrote = sync.written(k)
        changed = buf != snapshot[k]
        mask = changed if wrote is None else wrote | changed
        if mask.any():
            res.writes[k] = (np.packbits(mask), buf[mask])
        read = sync.read_mask(k)
        if read is not None:
            res.reads[k] = np.packbits(read)
    return res


def _rebuild(err: tuple) -> EmulatorError:
    """The shard's emulator error, as raised in its process (message and attributes)."""
    cls, args, attrs = err
    exc = cls.__new__(cls)
    Exception.__init__(exc, *args)
    exc.__dict__.update(attrs)
    return exc
