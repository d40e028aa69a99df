"""``import asmgen`` and ``asmgen --help`` load only what they need: not ml_dtypes (about a second
here), networkx, the emulator or the profiler (issue 13, start-up). Checked in a fresh process."""
from __future__ import annotations

import json
import subprocess
import sys

HEAVY = ("ml_dtypes", "networkx", "isa.emu", "isa.cycle", "asmgen.profiling.foreign")


def _loaded_after(code: str) -> set[str]:
    probe = code + "\nimport json, sys\nprint(json.dumps(sorted(sys.modules)))"
    r = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    return set(json.loads(r.stdout.strip().splitlines()[-1]))


def test_import_asmgen_is_light():
    mods = _loaded_after("import asmgen")
    assert not {m for m in HEAVY if m in mods}, sorted(m for m in HEAVY if m in mods)
    assert "numpy" not in mods


def test_public_names_still_resolve():
    mods = _loaded_after("import asmgen\nassert callable(asmgen.gemm) and callable(asmgen.load)"
                         "\nassert callable(asmgen.attention) and asmgen.Kernel.__name__ == 'Kernel'")
    assert "ml_dtypes" not in mods and "isa.emu" not in mods


def test_help_is_light():
    mods = _loaded_after("import contextlib, io\nfrom asmgen.cli import main\n"
                         "with contextlib.redirect_stdout(io.StringIO()):\n"
                         "    try:\n        main(['--help'])\n    except SystemExit:\n        pass")
    bad = {m for m in (*HEAVY, "numpy") if m in mods}
    assert not bad, sorted(bad)


def test_generation_does_not_need_ml_dtypes_or_networkx():
    mods = _loaded_after("import asmgen\nk = asmgen.gemm(128, 128, 32, schedule='pgr2', "
                         "assemble=False)\nassert k.asm")
    assert "ml_dtypes" not in mods and "networkx" not in mods and "isa.emu" not in mods
