"""``python -m grounding_core.cli``: the ``grounding`` command."""

import sys

from grounding_core.cli import main

if __name__ == "__main__":
    sys.exit(main())
