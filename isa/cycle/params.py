"""Timing parameters of the cycle model, one table per arch (and per device for clock/HBM), each
value with its source tag.

Every number comes from the team's shared/docs/cdna-timing.md ("timing") or cdna-facts.md ("facts")
or a public source named beside it; the tag names the section and the kind letter used there:
**M** measured, **V** vendor-stated, **L** LLVM model, **S** second-hand quote, **D** derived here,
**F** fitted to a calibration figure (benchmarks/calibration.py says which one, and which figures
were held out), **?** not found for this arch (the gfx942 value is reused).

Sources named by tag: MAF = rocm.blogs.amd.com "measuring-max-achievable-flops-part2" (AMD, MI300X
and MI325X hipBLASLt max-achievable FLOPs with the median clock of each run); RPC-PIPE / RPC-SOL =
ROCm/rocprofiler-compute pipeline-descriptions.rst / gfx942 speed-of-light peaks; MT4G =
caps-tum/mt4g MI300X sample results; SISCHED = LLVM AMDGPU SISchedule.td (latency units of 4 clk,
"taken from AMD Accelerated Parallel Processing guide, may not be accurate"); CC = chipsandcheese
"Testing AMD's giant MI300X"; AZ = Azure ND MI300X STREAM results; HK = HipKittens (arXiv 2511.08083).
The clock a dense GEMM sustains is a device property (power-limited, cdna-timing section 5): it is
``sustained_clock_mhz`` of the device, the only place any script or report takes it from.
``params_for(arch, device=None)`` returns an ``ArchParams``; ``p.value("lds_latency")`` or
``p.lds_latency`` read a number, ``p.source("lds_latency")`` its tag, ``p.table()`` all of them.
"""
from __future__ import annotations

from dataclasses import dataclass

from ..errors import IsaError


class CycleParamError(IsaError):
    """An unknown arch, device or parameter name asked of the cycle-model tables."""


@dataclass(frozen=True, slots=True)
class Value:
    """One parameter: its value and where it comes from."""

    value: float
    src: str


# --- values shared by gfx942 and gfx950 (issue model, MFMA, latencies) ----------------------------
_COMMON: dict[str, Value] = {
    "simds_per_cu": Value(4, "facts §1 (SPECS)"),
    "max_waves_per_simd": Value(8, "facts §1 [V]; timing §3 (RPC-PIPE) V"),
    "vgprs_per_lane": Value(512, "facts §1 [V] (unified VGPR+AGPR file)"),
    # each clk the arbiter serves one SIMD, round robin -> a SIMD gets an issue slot every 4 clk
    "issue_interval": Value(4, "timing §3 arbiter (RPC-PIPE, RPC-SOL) V"),
    # one issued instruction = one wait state (facts §3) and a wave issues at most once per slot
    "wait_state_clk": Value(4, "D: facts §3 (1 instr = 1 wait state) x timing §3 (slot every 4 clk)"),
    "valu_clk": Value(4, "timing §3 VALU wave64 4 clk (IREE, SISCHED) V/L"),
    "trans_clk": Value(16, "timing §3 transcendental quarter rate (SISCHED) L; own pipe: ?"),
    "salu_clk": Value(4, "D: one issue slot (timing §3); LLVM SALU latency 1 unit (SISCHED) L"),
    "mfma_clk_per_pass": Value(4, "facts §2.1 (1 pass = 4 cycles) [V]; timing §3 (MCBLOG) V"),
    "lds_latency": Value(52, "timing §1 LDS read 51-52 clk (MT4G) M, gfx942"),
    "smem_latency": Value(48, "timing §1 s_load scalar L1 hit 48 clk (MT4G) M, gfx942"),
    "vmem_l2_latency": Value(288, "timing §1 L2 hit 288 clk p50 (MT4G) M, gfx942"),
    "vmem_hbm_latency": Value(876, "timing §1 HBM 876 clk p50 (MT4G) M, gfx942"),
    "vl1_bytes_per_clk": Value(128, "timing §2 vector L1 128 B/clk/CU (RPC-SOL) V, gfx942"),
    "lds_ports": Value(2, "timing §2 SIMDs pair on an LDS port (RPC-PIPE) V, gfx942"),
    # one extra serialized bank access per conflict, approximated as 1 clk of port time
    "lds_conflict_clk": Value(1, "D: facts §7 (conflicting lanes serialize), 1 clk per extra access"),
    # no measured s_barrier cost exists in the docs (LLVM's 500 is a scheduler guess, timing §1):
    # the release is modelled as visible at the next issue slot
    "barrier_release_clk": Value(4, "D: one issue slot; no measured value (timing §1 SISCHED 500 = guess)"),
    # a taken branch refills the wave's instruction buffer: the wave issues nothing else meanwhile
    "branch_taken_clk": Value(32, "L: SISCHED WriteBranch latency 8 units x 4 clk (AMD APP guide, "
                                  "'may not be accurate'); not taken = one issue slot"),
    # LDS writes: RPC-PIPE states a 64-lane store of 4 B/lane takes 8 clk and of 16 B/lane 20 clk;
    # widths between are interpolated linearly (D); reads move 64 B/clk per port (timing §2)
    "lds_write_b32_clk": Value(8, "timing §2 (RPC-PIPE) V: 64-lane 4 B/lane store = 8 clk"),
    "lds_write_b128_clk": Value(20, "timing §2 (RPC-PIPE) V: 64-lane 16 B/lane store = 20 clk"),
    # instruction cache: 64 KiB per 2 CUs (facts §1); both CUs run the same kernel, so its loop
    # competes with nothing else. A loop larger than the cache misses on every line each trip
    # (LRU over a cyclic stream); a line refills at one 64-B line per clk from L2 (D, no source)
    "icache_bytes": Value(65536, "facts §1 I$ 64 KiB per 2 CUs (SPECS)"),
    "icache_refill_bytes_per_clk": Value(64, "D: one 64-B line per clk from L2; no measured value"),
    # memory hierarchy below the CU (latencies: timing §1)
    "mall_latency": Value(460, "timing §1 MALL hit ~218 ns ~460 clk (CC) S"),
    "l2_bytes_xcd": Value(4 * 1024 * 1024, "facts §1 L2 4 MiB per XCD (SPECS, MI300)"),
    "xcds": Value(8, "facts §1 8 XCDs (SPECS); workgroups are dealt round-robin over them "
                     "(AMD MI300 docs 'workgroup dispatch'; Triton's XCD remap exists for it)"),
    "mall_bytes": Value(256 * 1024 * 1024, "facts §1 Infinity Cache 256 MiB (SPECS)"),
    # power-limited clock (isa.cycle.power): P ~ activity x f^n at the cap; n from the two MAF
    # runs of one kernel on one die at two caps: 750 W / 1207 MHz (MI300X) and 1000 W / 1447 MHz
    # (MI325X) at the same activity (0.942 / 0.936 of peak) -> ln(1000/750) / ln(1447/1207)
    "power_clock_exponent": Value(1.59, "D: MAF MI300X 750 W 1207 MHz vs MI325X 1000 W 1447 MHz "
                                        "(timing §4/§5), n = ln(4/3) / ln(1447/1207)"),
    # power per busy MFMA pipe-clk relative to bf16, from MAF's runs of other types beside bf16 on
    # one device (timing §4): w = (a_bf16 / a) x (f_bf16 / f)^n at the same cap. f16: MI300X 654 TF
    # @1115 MHz (a 0.942) -> 1.13, MI325X 794 @1354 (a 0.942) -> 1.10; fp8 (a over fp8's 2x rate):
    # MI300X 1273 @1230 (a 0.831) -> 1.10, MI325X 1519 @1464 (a 0.833) -> 1.10. i8 and f8f6f4
    # reuse fp8's (?); gfx950 reuses gfx942's (?)
    "power_weight_f16": Value(1.12, "D: MAF f16 vs bf16 clocks and activities, MI300X 1.13 / "
                                    "MI325X 1.10 (timing §4)"),
    "power_weight_fp8": Value(1.10, "D: MAF fp8 vs bf16 clocks and activities, MI300X 1.10 / "
                                    "MI325X 1.10 (timing §4); i8, f8f6f4: ?"),
}

_ARCH: dict[str, dict[str, Value]] = {
    "gfx942": {
        "mfma_flops_per_clk_cu": Value(2048, "facts §1 dense bf16 2048 FLOP/clk/CU (MI300)"),
        "lds_bytes_cu": Value(65536, "facts §1 LDS 64 KiB/CU (SPECS)"),
        "lds_bytes_per_clk": Value(128, "timing §2 LDS peak 128 B/clk/CU (RPC-PIPE, RPC-SOL) V"),
        "lds_port_bytes_per_clk": Value(64, "timing §2 64 B/clk per port per direction (RPC-PIPE) V"),
        "lds_banks": Value(32, "facts §7 32 banks x 4 B (CK-LDS)"),
        "l2_bytes_per_clk_xcd": Value(2048, "timing §2 L2 128 B/clk/ch x 16 ch/XCD (RPC-SOL) V/D"),
        "cus_per_xcd": Value(38, "facts §1 38 CUs/XCD (SPECS)"),
        # what the device floor uses: the measured L2 read bandwidth, 15.4 TB/s over 8 XCDs at
        # the 2.1 GHz the MT4G run is assumed to have used (a lower bound: "not tuned")
        "l2_achieved_bytes_per_clk_xcd": Value(917, "timing §2 L2 >= 15.4 TB/s read (MT4G) M / 8 "
                                                    "XCDs / 2.1 GHz D"),
    },
    "gfx950": {
        "mfma_flops_per_clk_cu": Value(4096, "facts §1 dense bf16 4096 FLOP/clk/CU (derived [V])"),
        "lds_bytes_cu": Value(163840, "facts §1 LDS 160 KiB/CU (CDNA4BLOG)"),
        "lds_bytes_per_clk": Value(256, "timing §2 LDS read 256 B/clk/CU (CDNA4GEMM, HKPH) V/M"),
        # port width not stated for gfx950: 256 B/clk split over the two ports assumed (?)
        "lds_port_bytes_per_clk": Value(128, "D: timing §2 256 B/clk / 2 ports; port width not stated (?)"),
        "lds_banks": Value(64, "facts §7 64 banks (CDNA4BLOG)"),
        # L2 bandwidth per XCD not stated for gfx950: the gfx942 figure is reused (?)
        "l2_bytes_per_clk_xcd": Value(2048, "? gfx942 value (timing §2 RPC-SOL); gfx950 not found"),
        "cus_per_xcd": Value(32, "facts §1 32 CUs/XCD (SPECS)"),
        # no L2 measurement for gfx950; the gfx942 one is for another chip: the peak is used (?)
        "l2_achieved_bytes_per_clk_xcd": Value(2048, "? gfx950 not measured: the RPC-SOL peak "
                                                     "formula 128 B/clk x 16 channels"),
    },
}

# Devices: clock, CU count and HBM bandwidth differ within an arch.
_DEVICES: dict[str, tuple[str, dict[str, Value]]] = {
    "MI300X": ("gfx942", {
        "clock_mhz": Value(2100, "timing §5 MI300X peak engine clock 2100 MHz (MAF) V"),
        # what dense bf16 GEMM actually runs at (750 W): the clock to compare measured TFLOP/s with
        # MAF: hipBLASLt BF16 4096x4864x32896 ran 708 TF with a median clock of 1207 MHz (its
        # sample run of the same test shows 1210 MHz): the clock of the published figure is used
        "sustained_clock_mhz": Value(1207, "timing §4/§5 MI300X hipBLASLt BF16 MAF run, median "
                                           "1207 MHz at 708 TF (MAF) M; sample run 1210 MHz"),
        # the activity of that run: 708 TF over the peak at 1207 MHz (2048 x 304 x 1.207 GHz)
        "power_ref_activity": Value(0.942, "D: MAF 708 TF / 751.5 TF peak at 1207 MHz (timing §4)"),
        "cus": Value(304, "facts §1 304 CUs (SPECS)"),
        "hbm_tbps": Value(5.3, "facts §1 HBM3 5.3 TB/s (MI300) V"),
        "hbm_achieved_tbps": Value(4.1, "timing §2 STREAM copy 4.11 / triad 4.09 TB/s (AZ) M"),
        "mall_tbps": Value(11.9, "timing §2 MALL ~11.9 TB/s measured (CC) S; 17 TB/s peak (STH) V"),
    }),
    "MI325X": ("gfx942", {
        "clock_mhz": Value(2100, "facts §1 MI325X peak 2100 MHz (MI300, derived)"),
        "sustained_clock_mhz": Value(1447, "timing §4 MI325X hipBLASLt BF16 MAF run (1000 W), "
                                           "843 TF at a median 1447 MHz (MAF) M"),
        "power_ref_activity": Value(0.936, "D: MAF 843 TF / 900.9 TF peak at 1447 MHz (timing §4)"),
        "cus": Value(304, "facts §1 304 CUs (SPECS)"),
        "hbm_tbps": Value(6.0, "facts §1 HBM3E 6 TB/s (secondary sources only) S"),
        "hbm_achieved_tbps": Value(4.6, "D: 6.0 TB/s x MI300X's achieved/peak 4.1/5.3; not measured"),
        "mall_tbps": Value(11.9, "? MI300X value (CC) S; same Infinity Fabric"),
    }),
    "MI355X": ("gfx950", {
        "clock_mhz": Value(2400, "facts §1 MI355X peak 2400 MHz (HOTCHIPS) V"),
        # not measured anywhere public: fitted (F) so asmgen's reproduction of HipKittens'
        # 8-wave ping-pong models HK's 1610 TF at bf16 8192^3 (benchmarks/calibration.py, the
        # one fitted figure); above the >= 1.54 GHz lower bound 1610 TF implies at 100% MFMA busy
        "sustained_clock_mhz": Value(1704, "F: fitted to HK bf16 8192^3 1610 TF "
                                           "(benchmarks/calibration.py); timing §5 lower bound "
                                           ">= 1.54 GHz D"),
        # the activity of the fit point: 1610 TF over the peak at 1704 MHz (4096 x 256 x 1.704)
        "power_ref_activity": Value(0.901, "F: with the clock, HK 1610 TF / 1786.8 TF peak at "
                                           "1704 MHz (the fitted figure)"),
        "cus": Value(256, "facts §1 256 CUs (SPECS)"),
        "hbm_tbps": Value(8.0, "facts §1 HBM3E 8 TB/s (SPECS, HK) V"),
        "hbm_achieved_tbps": Value(6.2, "D: 8.0 TB/s x MI300X's achieved/peak 4.1/5.3; not measured"),
        "mall_tbps": Value(11.9, "? MI300X value (CC) S; MI355X not found"),
    }),
}
DEFAULT_DEVICE = {"gfx942": "MI300X", "gfx950": "MI355X"}


class ArchParams:
    """The parameter table of one arch on one device (read-only)."""

    def __init__(self, arch: str, device: str, values: dict[str, Value]) -> None:
        self.arch = arch
        self.device = device
        self._values = dict(values)

    def value(self, name: str) -> float:
        try:
            return self._values[name].value
        except KeyError:
            raise CycleParamError(f"no cycle-model parameter {name!r} for {self.arch}; known: "
                                  f"{', '.join(sorted(self._values))}") from None

    def source(self, name: str) -> str:
        self.value(name)
        return self._values[name].src

    def __getattr__(self, name: str) -> float:
        if name.startswith("_"):
            raise AttributeError(name)
        return self.value(name)

    def table(self) -> dict[str, dict]:
        """name -> {"value", "src"} for every parameter (for reports)."""
        return {k: {"value": v.value, "src": v.src} for k, v in sorted(self._values.items())}

    def replace(self, **overrides: float) -> ArchParams:
        """A copy with some values replaced (tagged "override"); unknown names raise."""
        vals = dict(self._values)
        for k, v in overrides.items():
            self.value(k)
            vals[k] = Value(v, "override")
        return ArchParams(self.arch, self.device, vals)

    # --- derived values ---------------------------------------------------------------------
    def vmem_latency(self, hbm_fraction: float) -> float:
        """Mean VMEM load latency when ``hbm_fraction`` of the bytes miss L2 (D: linear mix of
        the measured L2-hit and HBM latencies, timing §1)."""
        _check_fraction(hbm_fraction)
        return ((1.0 - hbm_fraction) * self.vmem_l2_latency
                + hbm_fraction * self.vmem_hbm_latency)

    def hbm_bytes_per_clk_cu(self) -> float:
        """Per-CU share of HBM bandwidth in B/clk: HBM bandwidth / CUs / clock (D)."""
        return self.hbm_tbps * 1e12 / (self.cus * self.clock_mhz * 1e6)

    def l2_bytes_per_clk_cu(self) -> float:
        """Per-CU share of the XCD's L2 bandwidth in B/clk (D: timing §2 / CUs per XCD)."""
        return self.l2_bytes_per_clk_xcd / self.cus_per_xcd

    def vmem_bytes_per_clk(self, hbm_fraction: float) -> float:
        """Per-CU VMEM bandwidth in B/clk: the smallest of vector L1, the CU's L2 share and, when
        part of the traffic goes to HBM, the CU's HBM share divided by that fraction (D)."""
        _check_fraction(hbm_fraction)
        bw = min(self.vl1_bytes_per_clk, self.l2_bytes_per_clk_cu())
        if hbm_fraction > 0:
            bw = min(bw, self.hbm_bytes_per_clk_cu() / hbm_fraction)
        return bw

    def peak_tflops(self) -> float:
        return self.mfma_flops_per_clk_cu * self.cus * self.clock_mhz * 1e6 / 1e12


def _check_fraction(f: float) -> None:
    if not 0.0 <= f <= 1.0:
        raise CycleParamError(f"hbm_fraction {f} is outside 0..1")


def devices() -> dict[str, str]:
    """device name -> arch."""
    return {d: a for d, (a, _) in _DEVICES.items()}


def params_for(arch: str, device: str | None = None) -> ArchParams:
    """The parameter table of ``arch`` on ``device`` (default: MI300X for gfx942, MI355X for gfx950)."""
    if arch not in _ARCH:
        raise CycleParamError(f"unknown arch {arch!r}; the cycle model knows {', '.join(_ARCH)}")
    device = device or DEFAULT_DEVICE[arch]
    if device not in _DEVICES:
        raise CycleParamError(f"unknown device {device!r}; known: {', '.join(_DEVICES)}")
    dev_arch, dev_vals = _DEVICES[device]
    if dev_arch != arch:
        raise CycleParamError(f"device {device} is {dev_arch}, not {arch}")
    return ArchParams(arch, device, {**_COMMON, **_ARCH[arch], **dev_vals})


# The model's error against published measurements (benchmarks/calibration.py, relative error of
# modeled vs published TFLOP/s at the stated clock): what a modeled figure's uncertainty is.
# Updated by hand from the calibration run named in "run".
MODEL_ERROR: dict[str, dict] = {
    # MI300X/MI325X: hipBLASLt MAF x2 (-1.7 %, -1.0 %), hipBLASLt 8192^3 (-3.8 %, proxy kernel),
    # HipKittens 8192^3 (+2.7 %); all held out (the clocks are AMD's measured medians or the
    # power model's, isa.cycle.power)
    "gfx942": {"median": 0.024, "worst": 0.038, "figures": 4,
               "run": "benchmarks/calibration.py, 2026-12-03, all held out"},
    # MI355X: HipKittens 8192^3 (the fitted clock, 0 %), 16384^3 (+3.9 %), 4096^3 (+10.8 %)
    "gfx950": {"median": 0.074, "worst": 0.108, "figures": 2,
               "run": "benchmarks/calibration.py, 2026-12-03, held out; clock fitted on a third"},
    "default": {"median": 0.027, "worst": 0.108, "figures": 7,
                "run": "benchmarks/calibration.py, 2026-12-03"},
}
