"""``python -m grounding_core.emulator [serve options]``: the same as ``grounding serve``."""

from __future__ import annotations

import sys

from grounding_core.cli import main

if __name__ == "__main__":
    sys.exit(main(["serve", *sys.argv[1:]]))
