"""STAMP input files are checked against their stamps, not trusted: a file
that was deleted or damaged is generated again, by stamp/inputs.py and
through the package within one process."""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import subprocess
from pathlib import Path
from types import ModuleType

import pytest

import potm
from conftest import SOURCE_DIR, build_dir
from potm import stamp
from potm._lib import LibraryDir

KMEANS_TEST = "random-n2048-d16-c16.txt"
LABYRINTH_TEST = "random-x32-y32-z3-n96.txt"


@pytest.fixture(scope="module")
def inputs() -> ModuleType:
    """stamp/inputs.py as a module."""
    spec = importlib.util.spec_from_file_location("stamp_inputs", SOURCE_DIR / "stamp" / "inputs.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(autouse=True)
def _forget_options() -> None:
    stamp.clear_cache()


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_a_generated_file_has_a_stamp_of_its_recipe_and_checksum(
        inputs: ModuleType, tmp_path: Path) -> None:
    args = inputs.app_args("kmeans", "test", str(tmp_path))
    data = tmp_path / KMEANS_TEST
    assert args[-1] == str(data)
    record = json.loads((tmp_path / (KMEANS_TEST + ".stamp")).read_text())
    assert record["recipe"] == "kmeans 2048 16 16"
    assert record["files"] == {KMEANS_TEST: {"size": data.stat().st_size,
                                             "sha256": _sha(data)}}


@pytest.mark.parametrize("damage", ["delete", "truncate", "edit", "stamp-deleted",
                                    "other-recipe"])
def test_a_deleted_or_damaged_file_is_generated_again(
        inputs: ModuleType, tmp_path: Path, damage: str) -> None:
    inputs.app_args("labyrinth", "test", str(tmp_path))
    data = tmp_path / LABYRINTH_TEST
    stamp_file = tmp_path / (LABYRINTH_TEST + ".stamp")
    good = data.read_bytes()
    if damage == "delete":
        data.unlink()
    elif damage == "truncate":
        data.write_bytes(good[: len(good) // 2])
    elif damage == "edit":  # same size, other bytes: only the checksum tells
        data.write_bytes(good.replace(b"p ", b"q ", 1))
    elif damage == "stamp-deleted":
        stamp_file.unlink()
        data.write_bytes(b"not a maze\n")
    else:
        record = json.loads(stamp_file.read_text())
        record["recipe"] = "labyrinth 1 1 1 1"
        stamp_file.write_text(json.dumps(record))
        data.write_bytes(b"made by another recipe\n")
    assert not inputs.labyrinth_file(32, 32, 3, 96).is_valid(str(tmp_path))
    inputs.app_args("labyrinth", "test", str(tmp_path))
    assert data.read_bytes() == good
    assert inputs.labyrinth_file(32, 32, 3, 96).is_valid(str(tmp_path))


def test_an_intact_file_is_not_rewritten(inputs: ModuleType, tmp_path: Path) -> None:
    inputs.app_args("kmeans", "test", str(tmp_path))
    data = tmp_path / KMEANS_TEST
    os.utime(data, ns=(1, 1))  # a rewrite would set a new modification time
    inputs.app_args("kmeans", "test", str(tmp_path))
    assert data.stat().st_mtime_ns == 1


def test_the_package_regenerates_within_one_process(tmp_path: Path) -> None:
    """set_options remembers a set's options only while its files stay as
    they were: after a deletion or damage the next call regenerates them."""
    first = stamp.set_options("kmeans", "test", tmp_path)
    data = tmp_path / KMEANS_TEST
    good = data.read_bytes()
    assert first[-1] == str(data)

    data.unlink()
    assert stamp.set_options("kmeans", "test", tmp_path) == first
    assert data.read_bytes() == good

    with open(data, "r+b") as f:  # damaged in place
        f.truncate(100)
    assert stamp.set_options("kmeans", "test", tmp_path) == first
    assert data.read_bytes() == good


def test_the_package_does_not_ask_again_while_files_are_intact(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    stamp.set_options("kmeans", "test", tmp_path)
    calls: list[object] = []

    def counting_run(*args: object, **kwargs: object) -> object:
        calls.append(args)
        raise AssertionError("inputs.py asked again although nothing changed")
    monkeypatch.setattr(subprocess, "run", counting_run)
    stamp.set_options("kmeans", "test", tmp_path)
    assert calls == []


def test_a_stamp_run_after_its_input_was_deleted(tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """A real kmeans run after its points file went: the file comes back."""
    libs = build_dir()
    if not libs.is_dir() or not LibraryDir(libs).has_bench("seq", "kmeans"):
        pytest.skip(f"no kmeans library for seq in {libs}")
    monkeypatch.setenv(stamp.INPUT_DIR_ENV, str(tmp_path))
    potm.run("kmeans", backend="seq", size="test", lib_dir=libs).check()
    (tmp_path / KMEANS_TEST).unlink()
    potm.run("kmeans", backend="seq", size="test", lib_dir=libs).check()
    assert (tmp_path / KMEANS_TEST).is_file()
