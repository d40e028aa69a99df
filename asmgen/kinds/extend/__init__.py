"""The extend-attention kind (``asmgen attention --mode extend``): new tokens of packed
sequences (cu_seqlens_q) attend to their KV cache, the cached prefix and causally among
themselves, with the cache dense or vLLM-paged: config, contract, template (the decode kind's
cache loop, ``decode.body``), NumPy reference, profile, fuzz, CLI, kind."""
from __future__ import annotations

# the registry lists the kind by these without importing it (``registry.listing`` / ``modes``)
NAME = "extend"
HELP = "generate an extend-attention kernel (new tokens over a dense or paged KV cache)"
MODE_OF = ("attention", "extend")      # also asmgen attention --mode extend
