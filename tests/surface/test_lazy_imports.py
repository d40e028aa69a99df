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


def test_help_imports_no_kind_module_and_no_target():
    """``asmgen --help`` lists the kinds from their packages' NAME/HELP (registry.listing) and
    builds only names and help lines for the subcommands: no kind module, config or Target."""
    mods = _loaded_after("import contextlib, io\nfrom asmgen.cli import main\n"
                         "with contextlib.redirect_stdout(io.StringIO()):\n"
                         "    try:\n        main(['--help'])\n    except SystemExit:\n        pass")
    bad = {m for m in ("asmgen.target", "asmgen.dtypes", "asmgen.kinds.gemm.kind",
                       "asmgen.kinds.gemm.config", "asmgen.kinds.attention.kind",
                       "asmgen.kinds.attention.config", "asmgen.api") if m in mods}
    assert not bad, sorted(bad)


def test_cache_hit_runs_no_subprocess_and_no_model(tmp_path):
    """A repeated ``asmgen gemm`` is a cache hit that starts no process (the toolchain version
    comes from the cache folder's memo), loads neither the other kind nor the cycle model."""
    import os
    env = dict(os.environ, ASMGEN_CACHE_DIR=str(tmp_path / "cache"))
    env.pop("ASMGEN_NO_CACHE", None)
    cmd = ["gemm", "--m", "64", "--n", "64", "--k", "32", "--tile", "32x32x16", "--waves", "1x1",
           "-o", str(tmp_path / "out")]
    subprocess.run([sys.executable, "-m", "asmgen", *cmd], env=env, check=True,
                   capture_output=True)
    probe = ("import json, subprocess, sys\nstarted = []\n_run = subprocess.Popen.__init__\n"
             "def spy(self, *a, **k):\n    started.append(a[0] if a else k.get('args'))\n"
             "    _run(self, *a, **k)\nsubprocess.Popen.__init__ = spy\n"
             "from asmgen.cli import main\n"
             f"rc = main({cmd!r})\n"
             "print(json.dumps({'rc': rc, 'started': [str(s) for s in started], "
             "'mods': sorted(sys.modules)}))")
    r = subprocess.run([sys.executable, "-c", probe], env=env, capture_output=True, text=True,
                       check=True)
    assert "(cache hit)" in r.stdout
    out = json.loads(r.stdout.strip().splitlines()[-1])
    assert out["rc"] == 0 and out["started"] == []
    bad = {m for m in ("isa.cycle.model", "isa.hazards", "asmgen.kinds.attention.kind",
                       "asmgen.runtime.backend", "isa.emu") if m in out["mods"]}
    assert not bad, sorted(bad)
