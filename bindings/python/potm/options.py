"""Command-line options shared by several commands.

``potm.cli`` builds the ``potm`` command from them, ``potm.reproduce``
gives the scripts of ``experiments/`` the options of ``potm reproduce``.
Both import this module and neither imports the other at import time, so
the command line loads without matplotlib and ``potm.reproduce`` without
the command line.

Example:
    >>> import argparse
    >>> parser = argparse.ArgumentParser()
    >>> add_reproduce_arguments(parser)
    >>> args = parser.parse_args(["--full", "--lib-dir", "build"])
    >>> args.scale, args.lib_dir, args.out
    ('full', 'build', None)
"""

from __future__ import annotations

import argparse

from potm._lib import LIB_DIR_ENV

#: Where 'potm reproduce' writes by default: the repository's plots/ holds
#: the last full figures; quick ones stay out of it.
REPRODUCE_OUT = {"quick": "results/quick", "full": "plots"}


def add_lib_dir(parser: argparse.ArgumentParser) -> None:
    """--lib-dir DIR: the directory of the libpotm-*.so libraries."""
    parser.add_argument("--lib-dir", metavar="DIR",
                        help=f"directory of the libpotm-*.so libraries (default: the "
                             f"installed ones, or ${LIB_DIR_ENV})")


def add_reproduce_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of 'potm reproduce', also those of each script in
    experiments/ (potm.reproduce.script_main)."""
    scale = parser.add_mutually_exclusive_group()
    scale.add_argument("--quick", dest="scale", action="store_const", const="quick",
                       help="short runs, 3 repeats: about a minute per experiment on 2 "
                            "cores (the default)")
    scale.add_argument("--full", dest="scale", action="store_const", const="full",
                       help="the real sizes (minutes per experiment)")
    parser.set_defaults(scale="quick")
    parser.add_argument("--out", metavar="DIR",
                        help=f"output directory (default: {REPRODUCE_OUT['quick']} for "
                             f"--quick, {REPRODUCE_OUT['full']} for --full, relative to "
                             "the current directory)")
    add_lib_dir(parser)
    parser.add_argument("--resume", action="store_true",
                        help="reuse the runs recorded in DIR/<id>.runs.jsonl by an "
                             "earlier, interrupted reproduce (same libraries only; failed "
                             "runs recorded there are kept, not retried)")
    parser.add_argument("--no-progress", action="store_true", help="no progress line")
