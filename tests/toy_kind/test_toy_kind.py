"""The toy ``scale`` kind (tests/toy_kind/toykind.py, one folder and one ``register`` line):
generated through the registry's driver, assembled by LLVM, run on the emulator by the generic
``asmgen check`` path against its NumPy reference, cached by kind, and on the CLI."""
from __future__ import annotations

import json

import numpy as np
import pytest
import toykind  # registers the kind

from asmgen import api
from asmgen.cli import main
from asmgen.kinds import registry
from asmgen.runtime.emu import EmuRunner


@pytest.mark.parametrize("arch", ["gfx942", "gfx950"])
def test_toy_kind_generates_assembles_and_checks(arch, tmp_path, capsys):
    kern = api.generate("scale", rows=7, cols=45, arch=arch)    # 315 elements: a partial workgroup
    assert kern.hsaco[:4] == b"\x7fELF"                        # assembled by the toolchain
    assert kern.meta["config"]["kind"] == "scale" and kern.meta["grid"] == [5, 1, 1]
    assert "v_mul_f32" in kern.asm and "s_waitcnt" in kern.asm   # the waitcnt pass ran
    path = kern.save(tmp_path)
    assert main(["check", str(path), "--seed", "3"]) == 0
    assert capsys.readouterr().out.startswith(f"OK {kern.name} seed=3")


def test_toy_kind_result_is_the_reference_and_a_wrong_one_is_caught(tmp_path):
    kind = registry.get("scale")
    kern = api.generate(kind, rows=3, cols=70)
    inp = kind.random_inputs(kern.config, 1)
    out = EmuRunner(kern.meta, kern.hsaco)(**inp)
    assert np.array_equal(out, np.float32(inp["alpha"]) * inp["X"])
    ok, _ = kind.compare(kern.config, out, inp)
    assert ok
    out[2, 69] += 1.0                                           # the last element of the last lane
    ok, msg = kind.compare(kern.config, out, inp)
    assert not ok and "1" in msg


def test_toy_kind_on_the_cli_and_in_the_cache(tmp_path, capsys):
    assert main(["scale", "--rows", "2", "--cols", "64", "-o", str(tmp_path)]) == 0
    written = sorted(p.name for p in tmp_path.iterdir())
    assert written == ["scale_f32_2x64.hsaco", "scale_f32_2x64.json", "scale_f32_2x64.s"]
    assert json.loads((tmp_path / "scale_f32_2x64.json").read_text())["schedule"] == "default"
    from asmgen.cache import cached_generate
    k1, hit1 = cached_generate("scale", rows=4, cols=4, root=tmp_path / "cache")
    k2, hit2 = cached_generate("scale", rows=4, cols=4, root=tmp_path / "cache")
    assert (hit1, hit2) == (False, True) and k2.asm == k1.asm and k2.config == k1.config


def test_a_hook_the_toy_lacks_is_a_user_error(tmp_path, capsys):
    assert main(["fuzz", "scale", "--examples", "1", "-o", str(tmp_path)]) == 2
    assert "kernel kind 'scale' does not implement fuzz_configs" in capsys.readouterr().err


def test_duplicate_kind_registration_is_an_error():
    with pytest.raises(registry.DuplicateKind, match="'scale' is registered twice"):
        registry.register(toykind.ScaleKind())
    assert registry.get("scale") is toykind.SCALE
    with pytest.raises(registry.UnknownKind, match="'softmax' is not registered"):
        registry.get("softmax")


def test_toy_kind_declares_its_tags_in_its_folder():
    """``ScaleTag`` / ``SCALE_TAGS`` live in toykind.py; the kernel the kind builds carries them,
    a tag it does not declare is refused naming the kind, and the driver refuses a kind whose
    build returns a kernel of another vocabulary."""
    from asmgen.driver import compile
    from asmgen.errors import ConfigError
    from asmgen.ir import UnknownTag
    from asmgen.kinds.gemm.tags import GEMM_TAGS
    from isa.instr import Instr
    from isa.operands import Imm

    kind = registry.get("scale")
    assert kind.tags is toykind.SCALE_TAGS and kind.tags.kind == "scale"
    cfg = toykind.ScaleConfig(rows=2, cols=64)
    ir = kind.build(cfg, None)
    assert ir.tags is kind.tags
    used = {t for b in ir.blocks() for n in b.nodes for t in n.tags}
    assert used == {"addr", "load", "valu", "store"}
    with pytest.raises(UnknownTag, match=r"'mfma' .* kind scale \(its tags: .*load"):
        ir.prologue.add(Instr("v_mov_b32", (ir.vreg("v"), Imm(0))), ("mfma",))

    class Impostor(type(kind)):
        name = "scale_impostor"

        def build(self, cfg, recipe):
            k = toykind.build_scale(cfg)
            k.tags = GEMM_TAGS
            return k

    with pytest.raises(ConfigError, match=r"kind scale_impostor built a kernel with the tag "
                                        r"vocabulary of kind gemm"):
        compile(Impostor(), cfg, None, assemble=False)
