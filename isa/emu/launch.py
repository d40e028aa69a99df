"""The public emulator: ``Emulator.alloc``, ``Emulator.launch`` (code object -> initial wave state
per cdna-facts section 8 -> run every workgroup) and ``Emulator.run_program`` (an Instr list with an
explicit initial state, for unit tests without LLVM). Both run the same ``Machine``.

Initial state of a wave (cdna-facts section 8, AMDGPUUsage "Initial Kernel Execution State"):
enabled user SGPRs in hardware order from s0 (private segment buffer 4, dispatch ptr 2, queue ptr 2,
kernarg ptr 2, dispatch id 2, flat scratch init 2, private segment size 1), then preloaded kernarg
dwords when the descriptor asks (gfx940+), then from ``user_sgpr_count`` the workgroup ids x, y, z
that are enabled; v0 = packed work-item ids (x bits 9:0, y 19:10, z 29:20) for the enabled dims.
"""
from __future__ import annotations

import hashlib
import random
import struct
from collections.abc import Callable

import numpy as np

from ..instr import Instr
from ..spec import ARCHES
from . import denorm
from .errors import LaunchError
from .machine import Machine
from .memory import GlobalMemory
from .pool import Pool, capacity
from .program import Program
from .state import Wave

LDS_LIMIT = {"gfx942": 65536, "gfx950": 163840}   # cdna-facts section 1 (LLVM limit per workgroup)
MAX_BLOCK = 1024
HIDDEN_ARGS = {  # offset from the start of the hidden area, size (cdna-facts section 8)
    "hidden_block_count_x": 0, "hidden_block_count_y": 4, "hidden_block_count_z": 8,
    "hidden_group_size_x": 12, "hidden_group_size_y": 14, "hidden_group_size_z": 16,
    "hidden_remainder_x": 18, "hidden_remainder_y": 20, "hidden_remainder_z": 22,
    "hidden_global_offset_x": 40, "hidden_global_offset_y": 48, "hidden_global_offset_z": 56,
    "hidden_grid_dims": 64, "hidden_dynamic_lds_size": None}


# Decoded programs shared by every Emulator (a Program's caches are deterministic functions of
# its instructions, so sharing cannot change a run): (sha1 of code object, kernel, arch) -> entry.
_PROGRAMS: dict = {}
_PROGRAM_CACHE_SIZE = 64
# Parsed code objects by sha1, a few: a fuzz batch (asmgen.fuzz.batch) launches each of its up to
# 16 kernels from one shared object, which was parsed again per kernel (~1.5 ms each).
_CODE_OBJECTS: dict = {}
_CODE_OBJECT_CACHE_SIZE = 4


class Emulator:
    """A CDNA3/CDNA4 compute unit emulator with strict checks (see isa.emu.machine)."""

    def __init__(self, arch: str = "gfx942", seed: int = 0, trace: bool = False,
                 step_limit: int = 50_000_000, check_hazards: bool = True,
                 shuffle_workgroups: bool = True, check_global_races: bool = True,
                 poison_registers: bool = True, allow_hazards=(),
                 concurrent_workgroups: int | None = None, shards: int | None = None,
                 processes: int | None = None) -> None:
        if arch not in ARCHES:
            raise LaunchError(f"unknown arch {arch!r}; the emulator knows {', '.join(ARCHES)}")
        self.allow_hazards = _hazard_names(arch, allow_hazards)
        # (rule, kind) -> violations let through by allow_hazards (isa.emu.hazard_check)
        self.allowed_hazards: dict[tuple[str, str], int] = {}
        self.arch = arch
        self.seed = seed
        self.rng = random.Random(seed)
        self.mem = GlobalMemory()
        self.trace: list | None = [] if trace else None
        self.step_limit = step_limit
        self.check_hazards = check_hazards
        self.shuffle_workgroups = shuffle_workgroups
        self.check_global_races = check_global_races
        self.poison_registers = poison_registers
        # workgroups of a launch run side by side (isa.emu.pool); None: isa.emu.pool.capacity
        if concurrent_workgroups is not None and int(concurrent_workgroups) < 1:
            raise LaunchError(f"concurrent_workgroups {concurrent_workgroups!r} must be at least 1")
        self.concurrent_workgroups = concurrent_workgroups
        # a launch split into shards of workgroups run in worker processes (isa.emu.shards);
        # None: ``auto_shards``; processes None: the usable CPUs, at most the shards
        for name, v in (("shards", shards), ("processes", processes)):
            if v is not None and (isinstance(v, bool) or not isinstance(v, int) or v < 1):
                raise LaunchError(f"{name} {v!r} must be a positive integer or None")
        self.shards = shards
        self.processes = processes
        self.sharded_launches = 0       # launches run as several shards and merged
        self.shard_fallbacks = 0        # ... whose shards interacted: run again as one pool
        self.shard_fallback_reason = ""  # why, the last time (isa.emu.shards)
        self.last_split = (1, 1)        # (shards, processes) of the last sharded launch
        self.peak_workgroups = 0        # most workgroups one launch ran at once
        self.mixed_group_steps = 0      # group steps whose waves came from several workgroups
        self.steps = 0
        self._sys: dict = {}

    def alloc(self, arr: np.ndarray, name: str = "") -> int:
        """Register a NumPy array as device memory (updated in place); returns its address."""
        return self.mem.alloc(arr, name)

    # -----------------------------------------------------------------------------------------
    def program(self, instrs: list[Instr], labels: dict | None = None,
                offsets: list[int] | None = None) -> Program:
        return Program(list(instrs), dict(labels or {}), self.arch, offsets)

    def run_program(self, instrs, labels: dict | None = None, *, n_waves: int = 1,
                    lds_bytes: int = 0, setup: Callable[[Wave], None] | None = None,
                    sgpr_budget: int = 102, vgpr_budget: int = 256, agpr_budget: int = 256,
                    exec_mask: int = (1 << 64) - 1, scratch_bytes: int = 0) -> Machine:
        """Run one workgroup of ``n_waves`` waves over ``instrs`` (an Instr list, a Program, or
        assembly text when isa.asm_parse exists). ``setup(wave)`` fills registers first.
        Returns the finished Machine (``.waves``, ``.lds.data``)."""
        if isinstance(instrs, str):
            from ..asm_parse import parse_program
            instrs, labels = parse_program(instrs)
        prog = instrs if isinstance(instrs, Program) else self.program(instrs, labels)
        waves = []
        for i in range(n_waves):
            w = Wave(i, sgpr_budget, vgpr_budget, agpr_budget)
            w.set_exec(exec_mask)
            if setup is not None:
                setup(w)
            waves.append(w)
        m = self._machine(prog, waves, lds_bytes, (0, 0, 0))
        m.scratch_bytes = scratch_bytes     # per-lane private segment (isa.emu.mem_scratch)
        Pool.single(m).run()    # this workgroup alone (isa.emu.pool steps several together)
        self.steps += m.steps
        return m

    def _machine(self, prog, waves, lds_bytes, wg_id, own_files: bool = True) -> Machine:
        m = Machine(prog, waves, self.mem, lds_bytes, rng=self.rng, wg_id=wg_id,
                    step_limit=self.step_limit, trace=self.trace,
                    check_hazards=self.check_hazards, own_files=own_files)
        m.allow_hazards = self.allow_hazards        # read by isa.emu.hazard_check
        m.allowed_hazards = self.allowed_hazards
        return m

    # -----------------------------------------------------------------------------------------
    def launch(self, hsaco: bytes, kernel: str, grid=(1, 1, 1), block=(64, 1, 1),
               kernargs: bytes = b"", dynamic_lds: int = 0,
               progress: Callable[[int, int], None] | None = None) -> None:
        """Run ``kernel`` of a code object over ``grid`` workgroups of ``block`` work-items.
        Buffers registered with ``alloc`` are updated in place. ``progress(done, total)`` is
        called after each workgroup (a progress bar; it cannot change the run)."""
        from ..codeobj import CodeObject
        grid = _dims(grid, "grid")
        block = _dims(block, "block")
        n_threads = block[0] * block[1] * block[2]
        if n_threads > MAX_BLOCK:
            raise LaunchError(f"block {block} has {n_threads} work-items, more than {MAX_BLOCK}")
        sha = hashlib.sha1(bytes(hsaco)).hexdigest()
        key = (sha, kernel, self.arch)
        cached = _PROGRAMS.get(key)
        if cached is None:
            co = _CODE_OBJECTS.get(sha)
            if co is None:
                co = CodeObject.from_bytes(hsaco)
                if len(_CODE_OBJECTS) >= _CODE_OBJECT_CACHE_SIZE:
                    _CODE_OBJECTS.pop(next(iter(_CODE_OBJECTS)))
                _CODE_OBJECTS[sha] = co
            if kernel not in co.kernels:
                raise LaunchError(f"kernel {kernel!r} not in the code object; it has "
                                  f"{sorted(co.kernels)}")
            if co.arch != self.arch:
                raise LaunchError(f"code object is for {co.arch}, the emulator was made for {self.arch}")
            ki = co.kernels[kernel]
            prog = _decode_program(ki.code, self.arch)
            entry = 0
            if any(e.instr.op in _CALLS for e in prog.entries):
                prog, entry = _decode_with_callees(co, ki, self.arch)
            cached = (ki, prog, entry)
            if len(_PROGRAMS) >= _PROGRAM_CACHE_SIZE:
                _PROGRAMS.pop(next(iter(_PROGRAMS)))
            _PROGRAMS[key] = cached
        ki, prog, entry = cached
        d = ki.descriptor
        lds = d.group_segment_fixed_size + dynamic_lds
        if lds > LDS_LIMIT[self.arch]:
            raise LaunchError(f"LDS of {lds} bytes ({d.group_segment_fixed_size} static + {dynamic_lds} "
                              f"dynamic) exceeds the {self.arch} limit of {LDS_LIMIT[self.arch]}")
        karg = self._kernarg_segment(ki, kernargs, grid, block, dynamic_lds)
        dispatch = self._dispatch_packet(grid, block, lds, karg)
        queue = self._system_buffer("queue", 256)
        n_waves = (n_threads + 63) // 64
        order = [(x, y, z) for z in range(grid[2]) for y in range(grid[1]) for x in range(grid[0])]
        if self.shuffle_workgroups:
            self.rng.shuffle(order)
        budgets = (min(d.sgpr_alloc, 102), d.arch_vgpr_budget, d.agpr_budget)
        _check_unified_aliasing(prog, d, kernel)
        start = entry
        if d.kernarg_preload_spec_length and getattr(prog, "offset_to_pc", None):
            # AMDGPUUsage "Preloaded Kernel Arguments": firmware that preloads starts the kernel
            # 256 bytes in, past the compatibility block that loads the same SGPRs from memory.
            start = prog.offset_to_pc.get(prog.offsets[entry] + 256, entry)
        self.mem.begin_launch(self.check_global_races)
        cap = self.concurrent_workgroups or capacity(len(order), n_waves, lds)
        cap = max(1, min(cap, len(order)))

        def make(wg_index: int) -> Machine:
            wg = order[wg_index]
            waves = [self._init_wave(i, d, ki, wg, block, n_threads, karg, dispatch, queue, kernargs,
                                     budgets) for i in range(n_waves)]
            for w in waves:
                w.pc = start
            m = self._machine(prog, waves, lds, wg, own_files=cap == 1)
            m.scratch_bytes = d.private_segment_fixed_size   # isa.emu.mem_scratch
            if self.check_global_races:
                m.wg_index, m.wg_names = wg_index, order
            return m

        n_shards = self._shard_count(len(order), cap)
        if n_shards > 1:
            from . import shards
            state = self.rng.getstate()
            procs = self.processes or shards.usable_cpus()
            if shards.run_sharded(self, make, len(order), cap, n_waves, n_shards,
                                  max(1, min(procs, n_shards)), progress):
                return
            self.rng.setstate(state)        # the shards interacted: the one-pool run, exactly
            self.mem.begin_launch(self.check_global_races)
        done = [0]

        def on_done(m: Machine) -> None:
            self.steps += m.steps
            done[0] += 1
            if progress is not None:
                progress(done[0], len(order))
        pool = Pool(make, len(order), cap, n_waves, on_done)
        try:
            pool.run()
        finally:
            self.peak_workgroups = max(self.peak_workgroups, pool.peak)
            self.mixed_group_steps += pool.mixed_steps

    def _shard_count(self, n_wg: int, cap: int) -> int:
        """Shards this launch runs as (isa.emu.shards): ``shards`` when given, else
        ``auto_shards``; 1 when a trace is recorded (one ordered list), global races are not
        checked (the merge needs their write records) or the platform cannot fork."""
        if self.trace is not None or not self.check_global_races or n_wg < 2:
            return 1
        from .shards import can_fork
        if not can_fork():
            return 1
        n = self.shards if self.shards is not None else auto_shards(n_wg, cap)
        return max(1, min(n, n_wg))

    def _system_buffer(self, name: str, size: int) -> int:
        """Address of a zeroed emulator-owned buffer (kernargs, dispatch packet, queue), reused by
        later launches so repeated launches do not grow the address space."""
        buf = self._sys.get(name)
        if buf is None or buf[0].size < size:
            arr = np.zeros(max(size, 64), np.uint8)
            buf = self._sys[name] = (arr, self.alloc(arr, name))
        buf[0][:] = 0
        return buf[1]

    def _kernarg_segment(self, ki, kernargs: bytes, grid, block, dynamic_lds: int) -> int:
        size = max(ki.kernarg_segment_size, len(kernargs))
        addr = self._system_buffer("kernargs", max(size, 8) + 256)
        seg = self._sys["kernargs"][0]
        seg[:len(kernargs)] = np.frombuffer(bytes(kernargs), np.uint8)
        for arg in ki.args:
            kind = arg.get(".value_kind", "")
            if kind in HIDDEN_ARGS:
                off = int(arg[".offset"])
                val = dynamic_lds if kind == "hidden_dynamic_lds_size" else _hidden_value(kind, grid, block)
                fmt = {2: "<H", 4: "<I", 8: "<Q"}[int(arg.get(".size", 4))]
                seg[off:off + struct.calcsize(fmt)] = np.frombuffer(struct.pack(fmt, val), np.uint8)
        return addr

    def _dispatch_packet(self, grid, block, lds, karg) -> int:
        # hsa_kernel_dispatch_packet_t (HSA runtime spec): sizes in work-items
        pkt = struct.pack("<HHHHHHIIIIIQQQQ", 0, 3, block[0], block[1], block[2], 0,
                          grid[0] * block[0], grid[1] * block[1], grid[2] * block[2], 0, lds, 0, karg,
                          0, 0)
        addr = self._system_buffer("dispatch_packet", 64)
        self._sys["dispatch_packet"][0][:64] = np.frombuffer(pkt.ljust(64, b"\0"), np.uint8)
        return addr

    def _init_wave(self, i, d, ki, wg, block, n_threads, karg, dispatch, queue, kernargs,
                   budgets) -> Wave:
        w = Wave(i, *budgets)
        # FLOAT_DENORM_MODE_32 / _16_64 (compute_pgm_rsrc1 bits 19:16) become the wave's initial
        # MODE denormal fields, FP16_OVFL (rsrc1 bit 26) MODE bit 23 (isa.emu.denorm)
        w.fp_mode = denorm.mode_bits(d.float_denorm_mode_32, d.float_denorm_mode_16_64, d.fp16_ovfl)
        if self.poison_registers:
            poison_wave(w, self.rng)
        lay = d.user_sgpr_layout()
        ptrs = {"dispatch_ptr": dispatch, "queue_ptr": queue, "kernarg_segment_ptr": karg}
        for name, reg in lay.items():
            if name in ptrs:
                w.sgpr[reg] = ptrs[name] & 0xFFFFFFFF
                w.sgpr[reg + 1] = ptrs[name] >> 32
        if d.kernarg_preload_spec_length:
            start = lay["kernarg_preload"]
            off = d.kernarg_preload_spec_offset * 4
            buf = bytes(kernargs).ljust(off + 4 * d.kernarg_preload_spec_length, b"\0")
            vals = np.frombuffer(buf[off:off + 4 * d.kernarg_preload_spec_length], np.uint32)
            w.sgpr[start:start + len(vals)] = vals
        for name, reg in d.system_sgpr_layout().items():
            if name.startswith("workgroup_id_"):
                w.sgpr[reg] = wg["xyz".index(name[-1])]
        t = np.arange(64 * i, 64 * i + 64)
        bx, by = block[0], block[1]
        ids = t % bx
        dims = d.enable_vgpr_workitem_id
        if dims >= 1:
            ids = ids | ((t // bx) % by) << 10
        if dims >= 2:
            ids = ids | (t // (bx * by)) << 20
        w.vgpr[0] = ids.astype(np.uint32)
        n_live = min(64, n_threads - 64 * i)
        w.set_exec((1 << n_live) - 1)
        return w


# The default split (``auto_shards``): AUTO_SHARDS shards (this machine has 2 cores) once every
# shard gets at least AUTO_MIN_POOLS pools' worth of workgroups (a shard's pool drains at its end,
# its last workgroups stepping in small groups); a launch below that runs as one pool. Fixed
# numbers, not the machine's CPU count, so a seed gives the same run on every machine.
AUTO_SHARDS = 2
AUTO_MIN_POOLS = 2


def auto_shards(n_wg: int, cap: int) -> int:
    return max(1, min(AUTO_SHARDS, n_wg // max(1, AUTO_MIN_POOLS * cap)))


def _check_unified_aliasing(prog, d, kernel: str) -> None:
    """gfx90a+ unified VGPR file: v_k with k >= accum_offset is the register a_(k - accum_offset)
    (codeobj.KernelDescriptor.arch_vgpr_budget). The emulator keeps v and a apart, so a kernel
    that names one register both ways is refused rather than run with two copies."""
    off = d.accum_offset
    if off is None:
        return
    from .program import A_BASE, V_BASE
    high_v, agprs = set(), set()
    for e in prog.entries:
        for k in e.rw_set:
            if V_BASE + off <= k < A_BASE:
                high_v.add(k - V_BASE - off)
            elif k >= A_BASE:
                agprs.add(k - A_BASE)
    both = sorted(high_v & agprs)
    if both:
        j = both[0]
        raise LaunchError(f"kernel {kernel!r} uses v{off + j} and a{j}, one register of the unified "
                          f"VGPR file (accum_offset {off}); the emulator does not model that aliasing")


def _hazard_names(arch: str, names) -> frozenset:
    """``allow_hazards`` checked against the rule names of isa.hazards (a typo must not allow
    nothing silently)."""
    if isinstance(names, str):
        names = (names,)
    names = frozenset(names or ())
    if not names:
        return names
    from ..hazards import RULES
    known = {r.name for r in RULES}
    bad = sorted(names - known)
    if bad:
        raise LaunchError(f"allow_hazards names unknown hazard rule(s) {bad}; the rules are "
                          f"{', '.join(sorted(known))}")
    return names


def _dims(v, what: str) -> tuple[int, int, int]:
    t = tuple(int(x) for x in v) + (1,) * (3 - len(tuple(v)))
    if len(t) != 3 or min(t) < 1:
        raise LaunchError(f"{what} {v!r} must be 1 to 3 positive integers")
    return t


def _hidden_value(kind: str, grid, block) -> int:
    axis = "xyz".index(kind[-1]) if kind[-2] == "_" and kind[-1] in "xyz" else 0
    if kind.startswith("hidden_block_count"):
        return grid[axis]
    if kind.startswith("hidden_group_size"):
        return block[axis]
    if kind == "hidden_grid_dims":
        return 1 + (grid[1] * block[1] > 1 or grid[2] * block[2] > 1) + (grid[2] * block[2] > 1)
    return 0   # remainders (uniform grids), global offsets


def _decode_program(code: bytes, arch: str) -> Program:
    """Decode the kernel's machine code once (isa.decode); branch targets are ``L_0x<offset>``
    labels that ``isa.decode.label_index`` maps to instruction indices."""
    from ..decode import decode, label_index
    decoded = decode(code, arch)
    instrs = [d.instr for d in decoded]
    offsets = [d.offset for d in decoded]
    return Program(instrs, label_index(decoded), arch, offsets)


_CALLS = ("s_swappc_b64", "s_call_b64")


def _decode_with_callees(co, ki, arch: str) -> tuple[Program, int]:
    """A kernel that calls functions (s_getpc_b64 + relocated offset + s_swappc_b64; callees
    return with s_setpc_b64 s[30:31]) runs over its whole code section, decoded once: returns the
    program and the kernel's entry instruction index. Branch targets are section offsets, so the
    PC-relative call arithmetic lands on the callee's first instruction (isa.emu.branch)."""
    sec = next((s for s in co.sections.values()
                if s.addr <= ki.code_address < s.addr + s.size and s.data), None)
    if sec is None:
        raise LaunchError(f"kernel {ki.name!r} calls functions but its code section was not found")
    prog = _decode_program(bytes(sec.data), arch)
    entry = prog.offset_to_pc.get(ki.code_address - sec.addr)
    if entry is None:
        raise LaunchError(f"kernel {ki.name!r}: entry {ki.code_address:#x} is not an instruction "
                          f"boundary of section {sec.name}")
    return prog, entry


def poison_wave(w: Wave, rng: random.Random) -> None:
    """Fill the registers a launch does not initialise with seeded garbage.

    On hardware, SGPRs/VGPRs/AGPRs beyond those the kernel descriptor asks to be set (user and
    system SGPRs, work-item ids in v0) hold whatever the previous wave on that SIMD left there
    (AMDGPUUsage, "Initial Kernel Execution State": only the enabled registers are defined).
    Zero-filling them would let a kernel that forgets to initialise a register pass by luck, so
    each launch fills them from the emulator's seeded RNG; the launch code then writes the
    defined ones on top.
    """
    # one draw of raw 64-bit PCG64 words cut into the three files (a third of the time of three
    # bounded integer draws: ~50 us per wave instead of ~130)
    files = (w.sgpr, w.vgpr, w.agpr)
    n = sum(f.size for f in files)
    raw = np.random.PCG64(rng.getrandbits(64)).random_raw((n + 1) // 2).view(np.uint32)
    at = 0
    for f in files:
        f[...] = raw[at:at + f.size].reshape(f.shape)
        at += f.size
