"""What a notebook shows: figures inline without %matplotlib inline, a
sweep table as a table (and as pandas), a one-line result, one updating
progress bar; counters that stay integers; panel titles that read as text."""

from __future__ import annotations

import csv
import io
import sys
import types
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from tqdm import tqdm

import potm
from potm.plot import InlineFigure, param_curves, speedup_lines, synthetic_table
from potm.plot.figure import INLINE_PIXELS_PER_INCH
from potm.progress import Progress
from potm.result import RunResult
from potm.table import HTML_ROWS, SweepTable

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def _result(backend: str = "tl2", threads: int = 1, *, commits: int = 10, aborts: int = 1,
            ok: bool = True, counts: Any = None, failure: str = "",
            **params: Any) -> RunResult:
    """A RunResult as a benchmark's JSON line makes it (no worker)."""
    stats = {"commits": commits, "aborts": aborts, "reads": 7 * commits}
    return RunResult(workload="bank", backend=backend, threads=threads, params=params,
                     ok=ok, failure=failure, throughput=100.0 * commits,
                     elapsed=0.5, ops=commits + aborts, commits=commits, aborts=aborts,
                     aborts_by_cause={"validate": aborts}, stats=stats,
                     counts=counts if counts is not None else {"hot": 3},
                     verified=ok, raw={"stats": stats}, wall_time=0.7)


def _table(rows: list[tuple[int, RunResult]], *names: str) -> SweepTable:
    return SweepTable.from_results(rows, list(names))


# ---------------------------------------------------------------- figures

def _a_figure() -> Any:
    t = synthetic_table({"backend": ["gl", "tl2"], "threads": [1, 2]},
                        lambda p: 100.0 * p["threads"])
    return speedup_lines(t, baseline={"backend": "tl2", "threads": 1})


def test_a_figure_shows_itself_as_png() -> None:
    fig = _a_figure()
    assert isinstance(fig, InlineFigure)
    answer = fig._repr_png_()
    assert answer is not None
    data, size = answer
    assert data.startswith(PNG_MAGIC)
    width, height = fig.get_size_inches()
    assert size == {"width": round(width * INLINE_PIXELS_PER_INCH),
                    "height": round(height * INLINE_PIXELS_PER_INCH)}
    assert fig._repr_svg_() is None  # one image per figure in a notebook


def test_a_figure_can_show_itself_as_svg() -> None:
    fig = _a_figure()
    fig.inline_format = "svg"
    svg = fig._repr_svg_()
    assert svg is not None and "<svg" in svg and ">tl2<" in svg
    assert fig._repr_png_() is None


def test_ipython_displays_a_figure_without_matplotlib_inline() -> None:
    """IPython's own display machinery, as Jupyter uses it, finds an image
    (pyplot is never imported, so no inline backend is involved)."""
    formatters = pytest.importorskip("IPython.core.formatters")
    data, metadata = formatters.DisplayFormatter().format(_a_figure())
    assert data["image/png"][:8] == PNG_MAGIC
    assert metadata["image/png"]["width"] > 0


def test_a_latency_table_figure_shows_itself_too() -> None:
    t = synthetic_table({"backend": ["tl2", "gl"]}, lambda p: 20.0)
    fig = potm.plot.latency_table(t, ["throughput"], rows=["backend"])
    assert isinstance(fig, InlineFigure)
    answer = fig._repr_png_()
    assert answer is not None and answer[0].startswith(PNG_MAGIC)


def test_panel_titles_read_as_text() -> None:
    t = synthetic_table({"benchmark": ["fasttx-r", "fasttx-rw"], "backend": ["tl2"],
                         "accesses": [1, 2]}, lambda p: 10.0 * p["accesses"])
    fig = param_curves(t, "accesses", panel="benchmark")
    titles = [ax.get_title() for ax in fig.axes if ax.get_visible() and ax.get_title()]
    assert titles == ["fasttx, r", "fasttx, rw"]
    t = synthetic_table({"threads": [1, 2], "backend": ["tl2"], "update": [0, 20]},
                        lambda p: 1.0 + p["update"])
    fig = param_curves(t, "update", panel="threads")
    assert [ax.get_title() for ax in fig.axes if ax.get_title()] == ["threads 1",
                                                                     "threads 2"]


# ---------------------------------------------------------------- tables

def test_a_sweep_table_renders_as_html() -> None:
    rows = [(0, _result("tl2", 1, commits=12)),
            (0, _result("gl", 1, ok=False, failure="crashed <SIGSEGV> & gone"))]
    html = _table(rows)._repr_html_()
    assert html.startswith("<table") and html.endswith("</table>")
    assert "<th>commits</th>" in html and "<th>throughput</th>" in html
    assert "<td>12</td>" in html and "<td>12.0</td>" not in html
    assert "crashed &lt;SIGSEGV&gt; &amp; gone" in html
    assert "2 rows x" in html and html.count("<tr>") == 3  # header + 2 rows


def test_a_long_table_shows_its_first_rows() -> None:
    rows = [(0, _result(seed=s)) for s in range(HTML_ROWS + 5)]
    html = _table(rows, "seed")._repr_html_()
    assert html.count("<tr>") == HTML_ROWS + 1
    assert f"the first {HTML_ROWS} shown" in html


def test_a_sweep_table_converts_to_pandas() -> None:
    pandas = pytest.importorskip("pandas")
    rows = [(r, _result("tl2", 2, commits=10 + r, accounts=64)) for r in range(3)]
    t = _table(rows, "accounts")
    frame = t.to_pandas()
    assert isinstance(frame, pandas.DataFrame)
    assert list(frame.columns) == list(t.columns) and len(frame) == 3
    assert frame["commits"].tolist() == [10, 11, 12]
    assert frame["commits"].dtype == np.int64 and frame["abort_validate"].dtype == np.int64
    assert frame["throughput"].dtype == np.float64
    assert frame["backend"].tolist() == ["tl2"] * 3


def test_without_pandas_to_pandas_says_so(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "pandas", None)  # import pandas fails
    with pytest.raises(ImportError, match="pip install pandas"):
        _table([(0, _result())]).to_pandas()


# ---------------------------------------------------------------- integers

def test_counters_stay_integers() -> None:
    rows = [(0, _result(commits=10, counts={"hot": 3, "mean_ns": 2.5})),
            (1, _result(commits=13, counts={"hot": 4, "mean_ns": 3.5})),
            (2, _result(commits=11, counts={"hot": 5, "mean_ns": 1.5}))]
    t = _table(rows)
    for column in ("ops", "commits", "aborts", "reads", "abort_validate", "count_hot"):
        assert t[column].dtype == np.int64, column
    for column in ("throughput", "elapsed", "wall_time", "count_mean_ns"):
        assert t[column].dtype == np.float64, column
    first = next(iter(t))
    assert type(first["commits"]) is int and first["commits"] == 10
    med = t.median()
    assert med["commits"].dtype == np.int64 and med["commits"].tolist() == [11]
    assert med["count_mean_ns"].tolist() == [2.5]


def test_the_median_of_an_even_number_of_counts_is_one_of_them() -> None:
    t = _table([(0, _result(commits=3)), (1, _result(commits=4))])
    assert t.median()["commits"].tolist() == [3]
    assert t.median()["throughput"].tolist() == [350.0]


def test_a_point_without_ok_runs_has_no_median() -> None:
    t = _table([(0, _result(ok=False, failure="x", commits=5))])
    med = t.median()
    assert med["runs"].tolist() == [0] and med["commits"].tolist() == [0]
    assert np.isnan(med["throughput"][0])
    stats = potm.plot.point_stats(med, "commits", ["backend"])
    assert np.isnan(stats[("tl2",)].median)  # a plot shows nothing, not 0


def test_integers_in_csv_and_after_concat(tmp_path: Path) -> None:
    t = _table([(0, _result(commits=10))])
    both = SweepTable.concat([t, t])
    assert both["commits"].dtype == np.int64
    both.to_csv(tmp_path / "t.csv")
    with open(tmp_path / "t.csv", newline="") as f:
        assert [row["commits"] for row in csv.DictReader(f)] == ["10", "10"]


def test_a_real_sweep_keeps_its_counters_integers(fake_lib_dir: Path) -> None:
    t = potm.sweep("bank", backends=["fake"], threads=[1, 2], repeat=2,
                   lib_dir=fake_lib_dir, progress=False)
    assert t["commits"].dtype == np.int64 and t["ops"].dtype == np.int64
    assert t.median()["commits"].dtype == np.int64


# ---------------------------------------------------------------- results

def test_a_result_repr_is_one_short_line() -> None:
    r = _result(accounts=64)
    r = RunResult(**{**r.__dict__, "stderr_tail": "x\n" * 500,
                     "raw": {"big": list(range(1000))}})
    text = repr(r)
    assert "\n" not in text and len(text) < 150
    assert text.startswith("<RunResult bank tl2 threads=1 accounts=64: ok, throughput 1000")
    failed = RunResult("bank", "gl", 2, {}, ok=False,
                       failure="the worker crashed: killed by SIGSEGV\n" + "detail " * 100)
    assert repr(failed) == "<RunResult bank gl threads=2: FAILED the worker crashed: killed by SIGSEGV>"


# ---------------------------------------------------------------- progress

def test_progress_is_one_tqdm_bar() -> None:
    out = io.StringIO()
    p = Progress(total=3, stream=out, inplace=True)
    p.skip(1)
    p.start("tl2 t=2 #1")
    assert isinstance(p._bar, tqdm)
    assert p._bar.initial == 1  # the cached run counts, but not in the rate
    p.finish(ok=True)
    p.start("tl2 t=4 #1")
    p.finish(ok=False)
    p.close()
    text = out.getvalue()
    assert "\n" not in text.rstrip("\n")  # redrawn in place: one line
    final = text.rstrip("\n").split("\r")[-1]
    assert "3/3" in final and "1 cached" in final and "1 failed" in final


def test_progress_in_a_notebook_updates_in_place(monkeypatch: pytest.MonkeyPatch) -> None:
    """In a Jupyter kernel stderr is no terminal, yet the bar updates in place."""
    monkeypatch.setitem(sys.modules, "ipykernel", types.ModuleType("ipykernel"))
    out = io.StringIO()
    p = Progress(total=2, stream=out)
    p.start("a")
    assert p.inplace and p._bar is not None
    p.finish(ok=True)
    p.start("b")
    p.finish(ok=True)
    p.close()
    assert "\r" in out.getvalue() and out.getvalue().count("\n") <= 1


def test_progress_in_a_log_is_a_line_per_run() -> None:
    out = io.StringIO()
    p = Progress(total=2, stream=out, inplace=False)
    p.start("a")
    p.finish(ok=True)
    p.start("b")
    p.finish(ok=False)
    p.close()
    lines = out.getvalue().splitlines()
    assert lines[0].startswith("1/2") and lines[0].endswith("a")
    assert lines[1] == "2/2 (1 failed) b  FAILED" and lines[2] == "2/2 (1 failed) done"
    assert "\r" not in out.getvalue()


def test_disabled_progress_writes_nothing() -> None:
    out = io.StringIO()
    p = Progress(total=1, stream=out, enabled=False, inplace=True)
    p.start("a")
    p.finish(ok=True)
    p.close()
    assert out.getvalue() == ""


def test_a_sweep_found_whole_in_the_cache_shows_a_full_bar() -> None:
    out = io.StringIO()
    p = Progress(total=2, stream=out, inplace=True)
    p.skip(2)
    p.close()
    p.close()  # closing twice draws nothing more
    final = out.getvalue().rstrip("\n").split("\r")[-1]
    assert "2/2" in final and "2 cached" in final
    assert out.getvalue().count("\n") == 1
