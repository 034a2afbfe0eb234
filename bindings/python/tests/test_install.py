"""`pip install ./bindings/python` builds the C libraries into the package.

Slow (a full CMake build) and it needs the package index for the build
requirements, so it runs only when asked: POTMPY_TEST_INSTALL=1.
"""

from __future__ import annotations

import os
import subprocess
import venv
from pathlib import Path

import pytest

from conftest import SOURCE_DIR

pytestmark = pytest.mark.skipif(os.environ.get("POTMPY_TEST_INSTALL") != "1",
                                reason="slow: set POTMPY_TEST_INSTALL=1 to build and "
                                       "install the package into a fresh venv")


def test_pip_install_builds_and_finds_the_libraries(tmp_path: Path,
                                                    fake_lib_dir: Path) -> None:
    env_dir = tmp_path / "venv"
    venv.create(env_dir, with_pip=True, system_site_packages=True)
    python = env_dir / "bin" / "python"
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "POTMPY_LIB_DIR")}
    env.setdefault("CMAKE_BUILD_PARALLEL_LEVEL", "2")
    subprocess.run([str(python), "-m", "pip", "install", "-q",
                    str(SOURCE_DIR / "bindings" / "python")],
                   check=True, env=env, cwd=tmp_path)
    probe = ("import potm, pathlib; "
             "print(pathlib.Path(potm.__file__).parent); print(','.join(potm.backends())); "
             f"r = potm.run('bank', backend='fake', lib_dir={str(fake_lib_dir)!r}); "
             "print(r.ok)")
    done = subprocess.run([str(python), "-c", probe], check=True, env=env, cwd=tmp_path,
                          capture_output=True, text=True)
    package_dir, backends, worker_ok = done.stdout.split("\n")[:3]
    assert package_dir.startswith(str(env_dir)), "imported the source tree, not the install"
    assert set(backends.split(",")) >= {"seq", "gl", "tl2"}
    assert worker_ok == "True"
    cli = subprocess.run([str(env_dir / "bin" / "potm"), "backends"], check=True, env=env,
                         cwd=tmp_path, capture_output=True, text=True)
    assert "libpotm-tl2.so" in cli.stdout
    # The experiment definitions come with the package: listed and read
    # from the install, not from this checkout.
    listed = subprocess.run([str(env_dir / "bin" / "potm"), "experiments"], check=True,
                            env=env, cwd=tmp_path, capture_output=True, text=True)
    ids = {line.split()[0] for line in listed.stdout.splitlines()[3:] if line}
    assert {"overhead", "fig-3.7", "fig-3.10", "fig-7-1", "table-7.3"} <= ids
    where = subprocess.run([str(python), "-c", "from potm.experiments import registry; "
                            "print(registry.definitions_dir())"], check=True, env=env,
                           cwd=tmp_path, capture_output=True, text=True).stdout.strip()
    assert where.startswith(str(env_dir)) and where.endswith("_experiments")
    # STAMP without a checkout: the installed input table makes kmeans'
    # points and yada's mesh (with the installed generator) in the cache.
    cache = tmp_path / "cache"
    stamp_probe = ("import potm; "
                   "[potm.run(app, backend='seq', size='test').check() "
                   "for app in ('kmeans', 'yada')]; print('stamp ok')")
    done = subprocess.run([str(python), "-c", stamp_probe], check=True, cwd=tmp_path,
                          env={**env, "XDG_CACHE_HOME": str(cache)},
                          capture_output=True, text=True)
    assert "stamp ok" in done.stdout
    assert (cache / "potm" / "stamp-inputs" / "random-633.2.node").is_file()
