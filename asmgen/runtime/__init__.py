"""The runtime: launching code objects on a backend (``emu`` emulator or ``hip`` ROCm GPU), GPU
discovery, and backend selection. Submodules: ``load`` (the backend switch), ``hip_loader`` (the
HIP runner), ``devices`` (GPU listing, arch names), ``backend`` (``select_backend``), ``hipapi``
(hip-python access), ``errors``. hip-python is imported only when a HIP function is used.
"""
from __future__ import annotations

from .backend import BACKENDS, BackendChoice, select_backend
from .devices import GpuDevice, arch_from_gcn_name, list_devices, parse_gcn_name, probe_devices
from .errors import BackendError, DeviceMismatch, HipError, HipUnavailable
from .load import load

__all__ = ["BACKENDS", "BackendChoice", "BackendError", "DeviceMismatch", "GpuDevice", "HipError",
           "HipUnavailable", "arch_from_gcn_name", "list_devices", "load", "parse_gcn_name",
           "probe_devices", "select_backend"]
