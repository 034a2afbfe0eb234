"""The cffi declarations and the config mirror agree with the C headers and
library."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

import potm
from conftest import SOURCE_DIR, build_dir, real_backends
from potm import _ffi
from potm._lib import LibraryDir
from potm.config import CONFIG_FIELDS, config_field
from potm.modes import ModesUnavailable, library_modes, pot_modes

HEADERS = SOURCE_DIR / "include"

_LAYOUT_PROGRAM = r"""
#include <stddef.h>
#include <stdio.h>
#include <potm/config.h>
#include <potm/stats.h>
#define FIELD(T, f) printf("%s\"%s\": %zu", first ? "" : ", ", #f, offsetof(T, f)), first = 0
int main(void)
{
	int first = 1;
	printf("{\"tm_config_t\": {\"sizeof\": %zu, ", sizeof(tm_config_t));
	printf("\"offsets\": {");
	%CONFIG%
	printf("}}, \"tm_stats_t\": {\"sizeof\": %zu, \"offsets\": {", sizeof(tm_stats_t));
	first = 1;
	%STATS%
	printf("}}, \"TM_ABORT__COUNT\": %d}\n", (int)TM_ABORT__COUNT);
	return 0;
}
"""


def _fields(type_name: str) -> list[str]:
    return [name for name, _ in _ffi.ffi.typeof(type_name).fields]


@pytest.fixture(scope="module")
def c_layout(tmp_path_factory: pytest.TempPathFactory) -> dict[str, object]:
    """Sizes and offsets as the C compiler sees include/potm/*.h."""
    cc = os.environ.get("CC", "cc")
    if shutil.which(cc) is None:
        pytest.skip(f"no C compiler ({cc})")
    if not (HEADERS / "potm" / "config.h").is_file():
        pytest.skip(f"no potm headers in {HEADERS}")
    source = _LAYOUT_PROGRAM.replace(
        "%CONFIG%", "\n\t".join(f"FIELD(tm_config_t, {f});" for f in _fields("tm_config_t"))
    ).replace(
        "%STATS%", "\n\t".join(f"FIELD(tm_stats_t, {f});" for f in _fields("tm_stats_t")))
    work = tmp_path_factory.mktemp("layout")
    (work / "layout.c").write_text(source)
    subprocess.run([cc, "-std=gnu11", "-I", str(HEADERS), "-o", str(work / "layout"),
                    str(work / "layout.c")], check=True)
    out = subprocess.run([str(work / "layout")], check=True, capture_output=True, text=True)
    return json.loads(out.stdout)  # type: ignore[no-any-return]


@pytest.mark.parametrize("type_name", ["tm_config_t", "tm_stats_t"])
def test_struct_layout_matches_the_headers(c_layout: dict[str, dict[str, object]],
                                           type_name: str) -> None:
    c = c_layout[type_name]
    assert _ffi.ffi.sizeof(type_name) == c["sizeof"], \
        f"{type_name}: a field was added to or removed from the header"
    expected = {f: _ffi.ffi.offsetof(type_name, f) for f in _fields(type_name)}
    assert expected == c["offsets"]


def test_abort_cause_count(c_layout: dict[str, object]) -> None:
    assert c_layout["TM_ABORT__COUNT"] == _ffi.ABORT_CAUSE_COUNT


def test_config_mirror_names_fields_in_order() -> None:
    assert [f.name for f in CONFIG_FIELDS] == _fields("tm_config_t")


def _a_real_backend() -> str:
    backends = real_backends()
    if not backends:
        pytest.skip(f"no potm build in {build_dir()} (set POTMPY_BUILD_DIR)")
    return backends[0]


def test_config_defaults_match_the_library() -> None:
    backend = _a_real_backend()
    info = potm.backend_info(backend, lib_dir=build_dir())
    assert info.name == backend
    assert info.config_default == {f.name: f.default for f in CONFIG_FIELDS}
    assert len(info.abort_causes) == _ffi.ABORT_CAUSE_COUNT


def test_config_ranges_match_the_library(monkeypatch: pytest.MonkeyPatch) -> None:
    """tm_config_from_env accepts each bound and refuses one beyond it.

    (Loaded in this process: tm_config_from_env only parses; tm_init is
    never called.)"""
    core = _ffi.open_core(str(build_dir() / f"libpotm-{_a_real_backend()}.so"))
    cfg = _ffi.ffi.new("tm_config_t *")
    for field in CONFIG_FIELDS:
        trials: list[tuple[object, bool]]
        names = field.names(build_dir())
        if names is not None:
            trials = [(c, True) for c in names]
            trials.append(("bogus", False))
        else:
            trials = [(field.minimum, True), (field.maximum, True),
                      (field.maximum + 1, False)]
        for value, accepted in trials:
            monkeypatch.setenv(field.env, str(value))
            core.tm_config_default(cfg)
            status = core.tm_config_from_env(cfg)
            message = _ffi.string(core.tm_last_error())
            assert (status == 0) == accepted, f"{field.env}={value}: {message}"
            if accepted:
                assert _ffi.config_to_dict(cfg[0])[field.name] == value
            else:
                assert field.env in message
        monkeypatch.delenv(field.env)


def test_the_modes_are_read_from_the_library() -> None:
    """potm.modes reads tm_mode_name's list from a backend library: the
    same from each, the pot modes the experiments name, in that order."""
    libs = LibraryDir(build_dir())
    if not libs.path.is_dir() or not libs.backends():
        pytest.skip(f"no potm build in {build_dir()} (set POTMPY_BUILD_DIR)")
    assert pot_modes(build_dir()) == ("pot", "pot-fast", "pot-ordered", "pogl", "destm")
    for backend in libs.backends():
        assert library_modes(libs.core_path(backend)) == pot_modes(build_dir())
    assert config_field("mode").allowed(build_dir()) == "pot, pot-fast, pot-ordered, pogl, destm"


def test_without_a_mode_list_the_error_says_what_is_missing(
        fake_lib_dir: Path, tmp_path: Path) -> None:
    """The fake library has no tm_mode_name; a directory without libraries
    has nothing to ask."""
    with pytest.raises(ModesUnavailable, match=r"libpotm-fake.so does not export "
                                               r"tm_mode_name, which names the pot"):
        pot_modes(fake_lib_dir)
    with pytest.raises(ModesUnavailable, match=r"named by the C library \(tm_mode_name\), "
                                               r"and there is none: .*holds no libpotm-"):
        pot_modes(tmp_path)


def test_python_side_variables_are_not_potm_variables() -> None:
    """POTMPY_* must never be mistaken for a C setting."""
    from potm._lib import LIB_DIR_ENV
    assert not LIB_DIR_ENV.startswith("POTM_")
    assert Path(__file__).parent.joinpath("conftest.py").read_text().count("POTM_BUILD") == 0
