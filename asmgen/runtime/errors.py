"""Typed errors of the runtime (HIP backend, device discovery, kernel cache).

They subclass ``asmgen.errors.AsmgenError`` so the CLI prints them as one line with exit code 2.
``HipError`` carries the HIP error name (``hipErrorNoBinaryForGpu``, ...) and the call that failed;
``HipUnavailable`` says which piece is missing (the hip-python package or ``libamdhip64.so``) and
how to install it.
"""
from __future__ import annotations

from ..errors import AsmgenError, ConfigError

ROCM_INSTALL_HINT = (
    "install ROCm's HIP runtime (e.g. `apt install rocm-hip-runtime` from AMD's repository "
    "repo.radeon.com, see https://rocm.docs.amd.com) and set ROCM_PATH if it is not in /opt/rocm; "
    "the Python bindings come from `pip install hip-python`")
HIP_PYTHON_HINT = "install the HIP Python bindings with `pip install hip-python` (they need ROCm too)"


class RuntimeBackendError(AsmgenError):
    """Base class of runtime (backend) errors."""


class HipUnavailable(RuntimeBackendError):
    """No usable HIP runtime: hip-python is not installed, ``libamdhip64.so`` cannot be loaded, or
    no GPU is visible. ``missing`` names the piece (``"hip-python"``, ``"libamdhip64.so"``, ``"gpu"``)."""

    def __init__(self, message: str, missing: str, hint: str = ROCM_INSTALL_HINT) -> None:
        self.missing = missing
        self.hint = hint
        super().__init__(f"{message}; {hint}" if hint else message)


class HipError(RuntimeBackendError):
    """A HIP call returned an error: ``name`` is the HIP error name (e.g. ``hipErrorInvalidValue``),
    ``code`` its number, ``call`` the HIP function that failed."""

    def __init__(self, call: str, name: str, code: int, detail: str = "") -> None:
        self.call = call
        self.name = name
        self.code = int(code)
        tail = f": {detail}" if detail else ""
        super().__init__(f"{call} failed with {name} ({self.code}){tail}")


class DeviceMismatch(ConfigError):
    """The code object's arch differs from the GPU's (a gfx950 kernel on a gfx942 device)."""


class BackendError(ConfigError):
    """An unknown backend name, or a backend that cannot serve the request."""


class CacheError(AsmgenError):
    """The kernel cache cannot be used (unwritable folder, bad key parts, bad artifact names)."""


class CacheCorruptWarning(UserWarning):
    """A cache entry failed its checksum (or could not be parsed); it is rebuilt. Names the path."""
