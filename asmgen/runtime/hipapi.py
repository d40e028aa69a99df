"""Access to the HIP runtime through hip-python: import the bindings, call a HIP function, and
turn every failure into a typed error (``HipUnavailable`` for a missing package/library, ``HipError``
carrying the HIP error name for a failed call).

hip-python (``pip install hip-python``; 10.x re-exports ``rocm.bindings.hip`` as ``hip.hip``)
imports without ROCm; ``libamdhip64.so`` is dlopen'ed at the first HIP call, which then raises
``RuntimeError("failed to dlopen 'libamdhip64.so' ...")`` (checked on this machine with hip-python
10.0.0.0.1.2). Every HIP call returns a tuple whose first item is a ``hipError_t`` enum member
(``.name`` is the error name, readable without the library). Callers may inject any object with the
same functions (a test double) as ``hip``.
"""
from __future__ import annotations

import importlib
from typing import Any

from .errors import HIP_PYTHON_HINT, HipError, HipUnavailable

HIP_LIBRARY = "libamdhip64.so"


def hip_api() -> Any:
    """The hip-python HIP module (``hip.hip``), or ``HipUnavailable(missing="hip-python")``."""
    try:
        return importlib.import_module("hip").hip
    except (ImportError, AttributeError) as exc:
        raise HipUnavailable(f"the HIP Python bindings are not importable ({exc})", missing="hip-python",
                             hint=HIP_PYTHON_HINT) from None


def _is_library_failure(exc: BaseException) -> bool:
    text = str(exc)
    return "dlopen" in text or "amdhip64" in text or "cannot open shared object" in text


def _error_name(err: Any) -> tuple[str, int]:
    name = getattr(err, "name", None)
    code = int(getattr(err, "value", err))
    return (name if isinstance(name, str) else f"hipError_{code}"), code


def _error_detail(hip: Any, err: Any) -> str:
    """HIP's own description of ``err`` (hipGetErrorString), or '' when unavailable."""
    fn = getattr(hip, "hipGetErrorString", None)
    if fn is None:
        return ""
    try:
        res = fn(err)
    except Exception:  # noqa: BLE001 - a description is optional; the error name is already known
        return ""
    text = res[-1] if isinstance(res, tuple) else res
    if text is None:
        return ""
    if isinstance(text, (bytes, bytearray)):
        return bytes(text).decode("utf-8", "replace")
    return str(text)   # hip-python returns a CStr, whose str() is the decoded text


def hip_call(hip: Any, name: str, *args: Any) -> Any:
    """Call ``hip.<name>(*args)``; return its outputs after the error code (None, one value, or a
    tuple). Raises ``HipUnavailable`` when ``libamdhip64.so`` cannot be loaded and ``HipError`` when
    the call returns anything but ``hipSuccess``."""
    fn = getattr(hip, name, None)
    if fn is None:
        raise HipUnavailable(f"the HIP bindings lack {name}", missing="hip-python", hint=HIP_PYTHON_HINT)
    try:
        res = fn(*args)
    except RuntimeError as exc:
        if _is_library_failure(exc):
            raise HipUnavailable(f"{name}: the HIP runtime library {HIP_LIBRARY} cannot be loaded "
                                 f"({exc})", missing=HIP_LIBRARY) from None
        raise
    if not isinstance(res, tuple):
        res = (res,)
    err, outs = res[0], res[1:]
    err_name, code = _error_name(err)
    if code != 0:
        raise HipError(name, err_name, code, _error_detail(hip, err))
    if not outs:
        return None
    return outs[0] if len(outs) == 1 else outs
