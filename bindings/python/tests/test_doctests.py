"""The examples in the package's docstrings run (those that need built
libraries are marked +SKIP there)."""

from __future__ import annotations

import doctest
import importlib
import pkgutil
from types import ModuleType

import pytest

import potm

#: Every module of the package, those of its subpackages included.
MODULES = sorted(m.name for m in pkgutil.walk_packages(potm.__path__, "potm."))


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name: str) -> None:
    module: ModuleType = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS, verbose=False,
                             extraglobs={"potm": potm})
    assert result.failed == 0, f"{result.failed} docstring example(s) failed in {name}"
