"""``asmgen gemm`` without tuning flags: the configuration the calibrated cycle model ranks best
for the problem size (``asmgen.kinds.gemm.defaults``)."""
from __future__ import annotations

import json

import pytest

from asmgen.errors import ConfigError
from asmgen.kinds.gemm.defaults import build_default, candidates


@pytest.mark.parametrize("arch,depth", [("gfx942", 32), ("gfx950", 64)])
def test_large_problem_gets_the_pingpong(arch, depth):
    first = candidates(8192, 8192, arch)[0]
    assert first["schedule"] == "pingpong" and first["tile"] == (256, 256, depth)
    assert first["waves"] == (2, 4) and first["direct_to_lds"] and first["lds_swizzle"]


def test_other_layouts_get_the_interleave():
    for arch in ("gfx942", "gfx950"):
        first = candidates(8192, 8192, arch, "NN")[0]
        assert first["schedule"] == "interleave" and first["waves"] == (2, 2)
        assert first["tile"][:2] == (256, 256)


def test_size_classes():
    # 4096^2: 256 tiles of 256x256 < 304 CUs: no ping-pong on gfx942, but 1024 of 128x128
    assert [c["schedule"] for c in candidates(4096, 4096, "gfx942")] == ["pgr1", "pgr1"]
    assert [c["tile"] for c in candidates(4096, 4096, "gfx942")] == [(128, 128, 32), (64, 64, 32)]
    assert [c["schedule"] for c in candidates(4096, 4096, "gfx950")] == ["pingpong", "interleave",
                                                                          "pgr1"]
    assert [c["tile"] for c in candidates(4096, 4096, "gfx950")][1] == (128, 128, 64)
    assert [c["tile"] for c in candidates(256, 256, "gfx942")] == [(64, 64, 32)]
    with pytest.raises(ConfigError, match="gfx90a"):
        candidates(64, 64, "gfx90a")


def test_falls_back_when_the_generator_refuses():
    calls = []

    def gemm(m, n, k, **kw):
        calls.append(kw["schedule"])
        if kw["tile"] == (128, 128, 32):
            raise ConfigError("refused")
        return "kernel"
    assert build_default(gemm, 4096, 4096, 512, "gfx942") == ("kernel", candidates(4096, 4096, "gfx942")[1])
    assert calls == ["pgr1", "pgr1"]


def test_cli_without_tuning_flags_prints_the_default(tmp_path, capsys):
    from asmgen.cli import main
    assert main(["gemm", "--m", "128", "--n", "128", "--k", "64", "-o", str(tmp_path)]) == 0
    assert "default configuration: tile=64x64x32 waves=2x2 schedule=pgr1" in capsys.readouterr().out
    meta = json.loads(next(tmp_path.glob("*.json")).read_text())
    assert meta["schedule"] == "pgr1" and meta["config"]["tile"] == [64, 64, 32]


@pytest.mark.parametrize("arch,dtype", [("gfx942", "fp8_e4m3fnuz"), ("gfx950", "fp8_e4m3"),
                                        ("gfx942", "i8")])
@pytest.mark.parametrize("layout", ["NN", "TN", "TT"])
def test_8bit_other_layouts_get_the_padded_pingpong(arch, dtype, layout):
    """An 8-bit GEMM with an MN-contiguous operand: the 8-wave ping-pong over padded LDS rows
    (no LDS-DMA, which TN has no K-contiguous operand for), and it builds at 8192^3 (before,
    TN fell through to the 64x64 class); NT keeps the LDS-DMA + swizzle ping-pong on gfx942 (at
    DepthU 64) and
    takes the padded one on gfx950 (two 32-byte swizzle units per 64-byte row)."""
    from asmgen.api import gemm
    first = candidates(8192, 8192, arch, layout, dtype)[0]
    assert first["schedule"] == "pingpong" and first["waves"] == (2, 4)
    assert "direct_to_lds" not in first and "lds_swizzle" not in first
    assert first.get("lds_pad") == (None if arch == "gfx942" else 32)
    kern, cfg = build_default(gemm, 8192, 8192, 8192, arch, dtype=dtype, layout=layout,
                              assemble=False)
    assert cfg == first and kern.config.tile[:2] == (256, 256)
    nt = candidates(8192, 8192, arch, "NT", dtype)[0]
    assert nt == first if arch == "gfx950" else (nt["direct_to_lds"] and nt["lds_swizzle"])
    # gfx942 NT, the fast path: DepthU 64, the two 8-bit 256x256 buffers of its 64 KiB LDS
    assert nt["tile"] == ((256, 256, 64) if arch == "gfx942" else first["tile"])
    assert candidates(8192, 8192, arch, "NT")[0]["direct_to_lds"]      # f16: unchanged
