"""lit configuration of the structural tests: each ``.test`` file generates a small kernel with
``tests/stage_dump.py`` (or ``python -m asmgen``) and FileChecks its loop (tests/lit/README.md).

Substitutions: ``%python`` (this interpreter), ``%dump`` (the stage dump script), ``FileCheck``
(LLVM's FileCheck-22 when installed, else the ``filecheck`` package from PyPI). The repository
root goes first on PYTHONPATH so the tests run the working tree's asmgen.
"""
import os
import shutil
import sys
from pathlib import Path

import lit.formats

config.name = "asmgen-structure"  # noqa: F821  (lit injects ``config``)
config.test_format = lit.formats.ShTest(execute_external=False)  # noqa: F821
config.suffixes = [".test"]  # noqa: F821
config.test_source_root = os.path.dirname(__file__)  # noqa: F821

ROOT = Path(__file__).resolve().parents[2]
filecheck = shutil.which("FileCheck-22") or shutil.which("FileCheck") or shutil.which("filecheck")
if filecheck is None:
    lit_config.fatal("no FileCheck: install the dev extras (pip package filecheck)")  # noqa: F821
config.substitutions.append(("%python", sys.executable))  # noqa: F821
config.substitutions.append(("%dump", f"{sys.executable} {ROOT / 'tests' / 'stage_dump.py'}"))  # noqa: F821
config.substitutions.append(("FileCheck", filecheck))  # noqa: F821
config.environment["PYTHONPATH"] = os.pathsep.join(  # noqa: F821
    [str(ROOT)] + ([os.environ["PYTHONPATH"]] if os.environ.get("PYTHONPATH") else []))
config.environment["ASMGEN_CACHE_DIR"] = os.environ.get(  # noqa: F821
    "ASMGEN_CACHE_DIR", str(Path(os.environ.get("TMPDIR", "/tmp")) / "asmgen-lit-cache"))
