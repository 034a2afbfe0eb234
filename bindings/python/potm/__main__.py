"""``python -m potm``: the command line (see potm.cli)."""

from __future__ import annotations

from potm.cli import main

if __name__ == "__main__":
    main()
