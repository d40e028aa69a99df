"""Global write races between the workgroups of a launch, ordered by the synchronisation AMD's
memory model defines (the judge's happens-before).

Workgroups of a launch are unordered, so two writes of one byte by two of them race unless one
happens before the other. Happens-before is built from LLVM's AMDGPUUsage, "Memory Model GFX942"
and its table "AMDHSA Memory Model Code Sequences GFX940, GFX941, GFX942":

* program order of a wave, and ``s_barrier`` among the waves of a workgroup: after it each wave
  knows what any of them knew and the writes the others issued before it (LLVM's
  workgroup-scope release waits only lgkmcnt(0) outside tgsplit mode: the waves of a workgroup
  share the CU's vector L1 and request queues, so a later agent-scope release by one of them
  covers them; see ``GlobalSync.barrier``);
* release -> acquire, between waves of any workgroups. A *synchronising write* W is a vector store
  with ``sc1`` (GFX942 "store atomic ... agent: buffer/global/flat_store sc1=1"), any vector or
  scalar atomic, or a scalar store. It publishes what its wave knows to be complete when W issues
  ("store atomic release agent: buffer_wbl2 sc1=1; s_waitcnt vmcnt(0) & lgkmcnt(0) ... Ensures
  that all memory operations have completed before performing the store that is being
  released"): the wave's writes older than its oldest memory op not yet covered by ``s_waitcnt``
  and, of those not written agent-coherently (a store without ``sc1``; atomics "implicitly bypass
  the L1 cache"), only the ones a later ``buffer_wbl2 sc1`` covers that was complete too ("Performs
  L2 writeback to ensure previous global/generic store/atomicrmw are visible at agent scope"). A
  *synchronising read* R is a vector load with ``sc1`` ("load atomic acquire agent:
  buffer/global_load sc1=1; s_waitcnt vmcnt(0)"), an atomic that returns the old value, or a
  scalar load with ``glc``. When R reads memory after W landed there, R's wave gains W's
  publication, and W itself (a write ordered after a value of its location that was read:
  coherence of one location), once R is covered by ``s_waitcnt`` ("Ensures the load has completed").
* atomic read-modify-writes of one byte never race with each other; an atomic and a plain write of
  one byte race as two plain writes do.

A plain read (a load without sc1 / glc) of a byte another workgroup wrote with a plain store
needs that store ordered before it too; bytes updated with atomics may be read plainly (LLVM's
compare-and-swap loops start from a plain load). Limits (docs/production-kernels.md): a read is
checked against writes issued before it (a write issued after another workgroup's read of the
byte, write-after-read, is not checked); the acquire side's ``buffer_inv sc1`` (which keeps later
loads from stale L2 lines) is not demanded; per byte the last plain write and the last atomic are
kept, so a plain write after two unordered atomics of two other workgroups is checked against the
later one. Scalar memory is outside LLVM's model ("Scalar memory operations are only used to
access memory that is proven to not change during the execution of the kernel dispatch"); its
stores, atomics and ``glc`` loads are taken as the synchronising writes and reads their vector
counterparts are, which AMD's aiter split-K GEMMs rely on.
"""
from __future__ import annotations

import functools

import numpy as np

from .errors import GlobalRaceError

SLOTS = 16            # waves per workgroup at most (1024 lanes): tid = wg_index * SLOTS + wave id


class GlobalSync:
    """Per launch: write records per byte, publications per dword, each wave's knowledge."""

    def __init__(self, mem) -> None:
        self.mem = mem
        self.k_of: dict[int, int] = {}     # id(uint8 buffer) -> allocation index
        self.plain: dict = {}              # k -> (writer tid + 1, op seq, agent-coherent) per byte
        self.atom: dict = {}               # k -> (writer tid + 1, op seq) of the last atomic
        self.pub: dict = {}                # k -> {dword: [(wave, tid, seq, vc, obs), ...]}
        self.vc: dict[int, dict] = {}      # tid -> {tid: (complete seq, written-back seq)}
        self.obs: dict[int, set] = {}      # tid -> {(tid, seq)} synchronising writes it has read
        self.pending: dict[int, list] = {}  # tid -> [(read op seq, vc, obs)] not yet covered
        self.wbl2: dict[int, list] = {}    # tid -> [(op seq, vc it covers)] of buffer_wbl2 sc1
        self.reads: dict | None = None     # k -> bool per byte read (``track_reads``), or None
        # called with a description at a synchronising read or write (a shard stops there:
        # isa.emu.shards runs communicating workgroups as one pool), or None
        self.on_sync = None

    def track_reads(self) -> None:
        """Record every byte a global read of this launch touches (``note_read``; every global
        read path calls ``check_read`` or ``read``): a shard of a launch (isa.emu.shards) reports
        what it read, so the merge can tell whether it observed bytes another shard wrote. The
        offsets are logged and scattered into the masks in batches (``read_mask``)."""
        self.reads = {}
        self._read_log: dict = {}
        self._logged = 0

    @property
    def checks_reads(self) -> bool:
        """Whether plain reads must call ``check_read``: bytes were written in this launch, or
        reads are recorded."""
        return bool(self.plain) or self.reads is not None

    def note_read(self, loc, nbytes: int) -> None:
        for buf, off in ([loc] if isinstance(loc, tuple) else [(b, o) for b, o, _ in loc]):
            if len(off):
                k = self._k(buf)
                log = self._read_log.get(k)
                if log is None:
                    log = self._read_log[k] = []
                log.append((np.array(off, np.int64), nbytes))
                self._logged += 1
        if self._logged >= 4096:
            self._flush_reads()

    def _flush_reads(self) -> None:
        for k, log in self._read_log.items():
            mask = self.reads.get(k)
            if mask is None:
                mask = self.reads[k] = np.zeros(self.mem.bufs[k].size, bool)
            by_size: dict = {}
            for off, n in log:
                by_size.setdefault(n, []).append(off)
            for n, offs in by_size.items():
                rng = _RANGES[n] if n < len(_RANGES) else np.arange(n)
                mask[(np.concatenate(offs)[:, None] + rng).ravel()] = True
        self._read_log = {}
        self._logged = 0

    def read_mask(self, k: int):
        """bool per byte of allocation ``k`` read in this launch (``track_reads``), or None."""
        self._flush_reads()
        return self.reads.get(k)

    def written(self, k: int):
        """bool per byte of allocation ``k`` written in this launch (plain or atomic), or None."""
        rec, arec = self.plain.get(k), self.atom.get(k)
        if rec is None:
            return None
        return rec[0] != 0 if arec is None else (rec[0] != 0) | (arec[0] != 0)

    # -- bookkeeping --------------------------------------------------------------------------
    def _k(self, buf) -> int:
        k = self.k_of.get(id(buf))
        if k is None:
            k = next(i for i, b in enumerate(self.mem.bufs) if b is buf)
            self.k_of[id(buf)] = k
        return k

    def _complete(self, m, w) -> int:
        """The wave's writes up to this op seq are complete: older than its oldest memory op
        not yet covered by s_waitcnt."""
        lo = min((op.seq for q in (w.vm_queue, w.lgkm_queue) for op in q), default=None)
        return m.clock.seq if lo is None else lo - 1

    def _fold(self, w, t: int) -> None:
        """Acquires whose read is covered by s_waitcnt now join the wave's knowledge."""
        pend = self.pending.get(t)
        if not pend:
            return
        queued = {op.seq for q in (w.vm_queue, w.lgkm_queue) for op in q}
        keep = []
        for s, vc, obs in pend:
            if s in queued:
                keep.append((s, vc, obs))
            else:
                _join(self.vc.setdefault(t, {}), vc)
                self.obs.setdefault(t, set()).update(obs)
        self.pending[t] = keep

    def _snapshot(self, m, w, t: int, own: int | None = None):
        """(vc, obs) the wave knows now; its own writes count up to ``own`` (default: the
        complete ones). A complete buffer_wbl2 sc1 of the wave raises the written-back entry of
        every wave it knew of when it issued (the writeback covers the whole L2)."""
        self._fold(w, t)
        c = self._complete(m, w)
        wbl2 = self.wbl2.get(t)
        if wbl2 and wbl2[0][0] <= c:              # complete ones raise the wave's knowledge for good
            mine = self.vc.setdefault(t, {})
            for s, snap in wbl2:
                if s <= c:
                    for u, (cu, _) in snap.items():
                        cur = mine.get(u, (0, 0))
                        mine[u] = (max(cur[0], cu), max(cur[1], cu))
            self.wbl2[t] = [e for e in wbl2 if e[0] > c]
        vc = dict(self.vc.get(t, {}))
        vc[t] = (c if own is None else own, vc.get(t, (0, 0))[1])
        return vc, frozenset(self.obs.get(t, ()))

    # -- events -------------------------------------------------------------------------------
    def write(self, m, w, ins, loc, nbytes: int) -> None:
        """A global write by ``w`` (issued right after this call) of ``nbytes`` per lane at ``loc``
        (a GlobalMemory.locate result): check it against earlier writes of other workgroups,
        record it, publish it when it is a synchronising write."""
        t = m.wg_index * SLOTS + w.wave_id
        if self.pending:
            self._fold(w, t)
        seq = m.clock.seq + 1
        atomic, coherent, publish = _kind(ins.op, ins.mods)
        if publish and self.on_sync is not None:
            self.on_sync(f"{ins.op} (a synchronising write)")
        vc, obs = self.vc.get(t, {}), self.obs.get(t, ())
        rng = _RANGES[nbytes] if nbytes < len(_RANGES) else np.arange(nbytes)
        snap = None
        for buf, off in ([loc] if isinstance(loc, tuple) else [(b, o) for b, o, _ in loc]):
            if not len(off):
                continue
            k = self._k(buf)
            idx = (off[:, None] + rng).ravel()
            rec = self.plain.get(k)
            if rec is None:
                rec = self.plain[k] = (np.zeros(buf.size, np.int32), np.zeros(buf.size, np.int64),
                                       np.zeros(buf.size, bool))
            elif rec[0][idx].any():                 # written before in this launch: by whom?
                self._check(m, w, k, idx, rec[0], rec[1], rec[2], vc, obs)
            arec = self.atom.get(k)
            if atomic:
                if arec is None:
                    arec = self.atom[k] = (np.zeros(buf.size, np.int32), np.zeros(buf.size, np.int64))
                arec[0][idx], arec[1][idx] = t + 1, seq
            else:
                if arec is not None:
                    self._check(m, w, k, idx, arec[0], arec[1], None, vc, obs)
                rec[0][idx], rec[1][idx], rec[2][idx] = t + 1, seq, coherent
            if publish:
                if snap is None:
                    snap = (w, t, seq) + self._snapshot(m, w, t)
                table = self.pub.setdefault(k, {})
                for dw in np.unique(idx >> 2).tolist():
                    lst = table.get(dw)
                    if lst is None:
                        table[dw] = [snap]
                    else:
                        _latest_landed(lst)       # keep the newest landed one and later ones
                        lst.append(snap)

    def _check(self, m, w, k, idx, wtid, wseq, wcoh, vc, obs, reading: bool = False) -> None:
        prev = wtid[idx]
        other = (prev != 0) & ((prev - 1) // SLOTS != m.wg_index)
        if not other.any():
            return
        seqs = wseq[idx]
        for u in (np.unique(prev[other]) - 1).tolist():
            c, f = vc.get(u, (0, 0))
            sel = other & (prev == u + 1)
            limit = c if wcoh is None else np.where(wcoh[idx], c, f)
            bad = sel & (seqs > limit)
            seen = [s for uu, s in obs if uu == u]
            if seen and bad.any():
                bad &= ~np.isin(seqs, seen)
            if bad.any():
                j = int(np.argmax(bad))
                off = int(idx[j])
                where = f"byte {off} of {self.mem.names[k]} (address {self.mem.bases[k] + off:#x})"
                other = m.wg_names[u // SLOTS]
                what = (f"global read race: {where} is read by workgroup {m.wg_id} after workgroup "
                        f"{other} wrote it" if reading else
                        f"global write race: {where} is written by workgroup {m.wg_id} and by "
                        f"workgroup {other}")
                raise m.error(GlobalRaceError, what + " of the same launch with no release -> acquire "
                              "between them (workgroups are unordered; isa.emu.global_sync)", w)

    def write_plain_group(self, entries: list, ins, nbytes: int) -> bool:
        """``write`` of each of one group step's members in order, in one NumPy scatter, when
        that is what the member-by-member calls would record (isa.emu.mem_buffer_group): plain
        writes (not atomic, not synchronising) ``entries`` [(machine, wave, (buffer, byte
        offsets))] into one allocation without atomic records, no acquire waiting to fold in,
        no byte of them written before in this launch (so ``write`` would check nothing) and
        none written by two of them; the k-th member's op is issued as seq ``clock.seq + 1 + k``
        (each right after its claim). Returns False, having recorded nothing, otherwise: the
        caller then claims member by member."""
        atomic, coherent, publish = _kind(ins.op, ins.mods)
        if atomic or publish or self.pending or not entries:
            return False
        buf = entries[0][2][0]
        if any(loc[0] is not buf for _, _, loc in entries):
            return False
        k = self._k(buf)
        if self.atom.get(k) is not None:
            return False
        rng = _RANGES[nbytes] if nbytes < len(_RANGES) else np.arange(nbytes)
        seq0 = entries[0][0].clock.seq + 1
        idx = np.concatenate([(loc[1][:, None] + rng).ravel() for _, _, loc in entries])
        per = [len(loc[1]) * nbytes for _, _, loc in entries]
        tids = np.repeat(np.array([m.wg_index * SLOTS + w.wave_id + 1 for m, w, _ in entries],
                                  np.int32), per)
        rec = self.plain.get(k)
        if rec is None:
            rec = self.plain[k] = (np.zeros(buf.size, np.int32), np.zeros(buf.size, np.int64),
                                   np.zeros(buf.size, bool))
        elif np.count_nonzero(rec[0][idx]):
            return False
        rec[0][idx] = tids
        if np.count_nonzero(rec[0][idx] != tids):     # two members wrote one byte
            rec[0][idx] = 0
            return False
        rec[1][idx] = np.repeat(np.arange(seq0, seq0 + len(entries), dtype=np.int64), per)
        rec[2][idx] = coherent
        return True

    def plain_read(self, m, w, loc, nbytes: int) -> None:
        """A plain (not synchronising) global read by ``w`` at issue: reading a byte another
        workgroup wrote with a plain store needs that store ordered before it, as a write would.
        Bytes other workgroups update with atomics may be read plainly at any time (LLVM's
        atomicrmw expansion starts its compare-and-swap loop with a plain load of the location:
        a stale value only costs an iteration)."""
        t = m.wg_index * SLOTS + w.wave_id
        if self.pending:
            self._fold(w, t)
        vc, obs = self.vc.get(t, {}), self.obs.get(t, ())
        rng = _RANGES[nbytes] if nbytes < len(_RANGES) else np.arange(nbytes)
        for buf, off in ([loc] if isinstance(loc, tuple) else [(b, o) for b, o, _ in loc]):
            rec = self.plain.get(self._k(buf)) if len(off) else None
            if rec is None:
                continue
            idx = (off[:, None] + rng).ravel()
            if rec[0][idx].any():
                self._check(m, w, self._k(buf), idx, rec[0], rec[1], rec[2], vc, obs, reading=True)

    def read(self, m, w, loc, nbytes: int):
        """A synchronising read by ``w`` (issued right after this call) of ``loc``: returns the
        function its landing calls, which takes in the publications of the writes it reads."""
        t = m.wg_index * SLOTS + w.wave_id
        seq = m.clock.seq + 1
        if self.on_sync is not None:
            self.on_sync(f"{m.entries[w.pc].instr.op} (a synchronising read)")
        if self.reads is not None:
            self.note_read(loc, nbytes)
        rng = np.arange(nbytes)
        where = [(self._k(buf), np.unique(((off[:, None] + rng) >> 2).ravel()).tolist())
                 for buf, off in ([loc] if isinstance(loc, tuple) else [(b, o) for b, o, _ in loc])
                 if len(off)]

        def landed() -> None:
            vc: dict = {}
            obs: set = set()
            for k, dws in where:
                table = self.pub.get(k)
                for dw in dws if table else ():
                    e = _latest_landed(table.get(dw))
                    if e is not None:
                        _join(vc, e[3])
                        obs |= e[4]
                        obs.add((e[1], e[2]))
            if obs:
                self.pending.setdefault(t, []).append((seq, vc, frozenset(obs)))
        return landed

    def writeback(self, m, w) -> None:
        """buffer_wbl2 sc1 issued by ``w`` (right after this call): once complete it has written
        back every write the wave knows of now (its own issued so far: VMEM ops run in order)."""
        t = m.wg_index * SLOTS + w.wave_id
        self._fold(w, t)
        snap = dict(self.vc.get(t, {}))
        snap[t] = (m.clock.seq, 0)
        self.wbl2.setdefault(t, []).append((m.clock.seq + 1, snap))

    def barrier(self, m, live) -> None:
        """s_barrier released ``live``: each wave knows what any of them knew, and every write
        the others issued before it. LLVM's workgroup-scope release waits only lgkmcnt(0)
        outside tgsplit mode ("No special action is required for coherence between wavefronts
        in the same work-group since they execute on the same CU"), so a later agent-scope
        release by one wave (its buffer_wbl2 sc1, s_waitcnt vmcnt(0), store) covers the writes
        its workgroup issued before the barrier."""
        vc: dict = {}
        obs: set = set()
        tids = [m.wg_index * SLOTS + w.wave_id for w in live]
        for w, t in zip(live, tids):
            v, o = self._snapshot(m, w, t, own=m.clock.seq)
            _join(vc, v)
            obs |= o
        for t in tids:
            self.vc[t] = dict(vc)
            self.obs[t] = set(obs)


_RANGES = [np.arange(n) for n in range(65)]      # byte offsets of an n-byte lane access


@functools.cache
def _kind(op: str, mods: tuple) -> tuple[bool, bool, bool]:
    """(atomic, written agent-coherently, a synchronising write) of a global write instruction."""
    names = {m[0] if isinstance(m, tuple) else m for m in mods}
    atomic = "atomic" in op
    scalar = op.startswith("s_")
    coherent = atomic or ("glc" in names if scalar else "sc1" in names)
    return atomic, coherent, atomic or scalar or "sc1" in names


def _join(dst: dict, src: dict) -> None:
    for u, (c, f) in src.items():
        old = dst.get(u)
        dst[u] = (c, f) if old is None else (max(c, old[0]), max(f, old[1]))


def _latest_landed(entries):
    """The newest publication of a dword whose write has landed (older ones are dropped)."""
    if not entries:
        return None
    for i in range(len(entries) - 1, -1, -1):
        e = entries[i]
        w, s = e[0], e[2]
        if not any(op.seq == s and not op.landed for q in (w.vm_queue, w.lgkm_queue) for op in q):
            del entries[:i]
            return e
    return None


def check_read(m, w, loc, nbytes: int) -> None:
    """The plain-read race check of a global load by ``w`` (its current instruction), unless it
    is a synchronising read (sc1 / glc: those read what other workgroups write by design)."""
    sync = getattr(m.mem, "sync", None) if m.wg_index is not None else None
    if sync is None or loc is None:
        return
    if sync.reads is not None:
        sync.note_read(loc, nbytes)
        if not sync.plain:
            return
    elif not sync.plain:
        return
    ins = m.entries[w.pc].instr
    if ins.has("sc1") or ins.has("glc"):
        return
    sync.plain_read(m, w, loc, nbytes)


def sync_of(m):
    """The launch's GlobalSync when global races are checked for machine ``m``, else None."""
    return getattr(m.mem, "sync", None) if m.wg_index is not None else None
