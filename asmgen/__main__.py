"""``python -m asmgen``: the command line (asmgen.cli)."""
import sys

from .cli import main

sys.exit(main())
