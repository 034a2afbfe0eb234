"""The Pot thesis's figures on fasttx, STAMP, STMBench7 and hardware TM.

The HTM figures are registered so that ``potm experiments`` lists them as
skipped with the reason (no RTM CPU, no POWER8) and they run where the
hardware exists.  A grid marked *provisional* was written from the
published description and has never run on its hardware: its view is still
to be checked against the thesis (a wrong parameter name makes the
experiment fail with a message naming it, it never runs silently wrong).

* fig-3.6: fasttx, the cost of one transaction by size and kind, 1 thread;
* fig-3.7: STAMP, Pot modes normalized to TL2 (execution time);
* fig-3.8: STAMP, time spent waiting for the turn, Pot next to DeSTM;
* fig-3.10: STMBench7, Pot modes normalized to TL2 (throughput);
* fig-3.12: STMBench7, speedup over 1-thread TL2 (scalability);
* fig-3.13: STAMP on Intel RTM, the share of persistent hardware aborts;
* fig-3.14: STAMP on POWER8, Pot-HTM's execution time relative to HTM.

Example:
    >>> [e.id for e in POT_THESIS_EXPERIMENTS]
    ['fig-3.6', 'fig-3.7', 'fig-3.8', 'fig-3.10', 'fig-3.12', 'fig-3.13', 'fig-3.14']
    >>> FIG_3_6.workloads()
    ['fasttx']
"""

from __future__ import annotations

from potm.experiments.model import Case, Experiment, Grid
from potm.experiments.tables import Column
from potm.experiments.render import Bars, Curves, Derived, NormalizedBars, Speedup
from potm.experiments.variants import POT_MODES

#: Access counts of the fast-transaction figure.
FASTTX_ACCESSES = (0, 1, 2, 4, 8, 16, 32, 64)


def fasttx(kind: str, accesses: tuple[int, ...] = ()) -> Case:
    """Transactions of one kind: r (reads), w (writes), rw (increments).

    An rw transaction is n/2 increments, so it takes only the even access
    counts of ``accesses`` (which then override the grid's).

    >>> fasttx("rw", (0, 1, 2, 4)).params
    {'kind': 'rw', 'accesses': [0, 2, 4]}
    """
    params: dict[str, object] = {"kind": kind}
    if kind == "rw" and accesses:
        params["accesses"] = [n for n in accesses if n % 2 == 0]
    return Case(f"fasttx-{kind}", "fasttx", params)


FIG_3_6 = Experiment(
    id="fig-3.6",
    title="Fast transactions: throughput by size and kind, 1 thread",
    reproduces="Pot thesis Figure 3.6: a transaction in Pot's fast mode against the same "
               "transaction on TL2, with uninstrumented code (seq) as the limit, by number "
               "of accesses (0..64) and kind (reads, writes, read-modify-writes)",
    quick=Grid(cases=(fasttx("r"), fasttx("w"), fasttx("rw")),
               variants=("seq", "tl2", "pot-fast"), threads=(1,), repeat=3,
               params={"accesses": [0, 4, 16, 64], "duration": 100}),
    full=Grid(cases=(fasttx("r"), fasttx("w"), fasttx("rw", FASTTX_ACCESSES)),
              variants=("seq", "tl2", "pot", "pot-fast"), threads=(1,), repeat=5,
              params={"accesses": list(FASTTX_ACCESSES), "duration": 1000}),
    render=Curves(x="accesses", logx=False),
    requires=("seq", "tl2", "pot"),
    provisional=False,
    notes="One thread, so every pot transaction runs in fast mode; rw (increments) "
          "takes even access counts only.",
)

#: The STAMP cases of Figures 3.7 and 3.8: case name, application and
#: flavour, the suffix of its input sets (stamp/README.md: kmeans and
#: vacation come in a low- and a high-contention flavour, "-high").
STAMP_CASES: tuple[tuple[str, str, str], ...] = (
    ("bayes", "bayes", ""),
    ("genome", "genome", ""),
    ("intruder", "intruder", ""),
    ("kmeans-low", "kmeans", ""),
    ("kmeans-high", "kmeans", "-high"),
    ("labyrinth", "labyrinth", ""),
    ("ssca2", "ssca2", ""),
    ("vacation-low", "vacation", ""),
    ("vacation-high", "vacation", "-high"),
    ("yada", "yada", ""),
)

#: The input set of each scale: quick, STAMP's simulator inputs ("small");
#: full, the published evaluation's ("paper"); real, STAMP's README inputs
#: for real machines.
STAMP_SETS: dict[str, str] = {"quick": "small", "full": "paper", "real": "real"}


def stamp(scale: str) -> tuple[Case, ...]:
    """Every STAMP case at the input set of scale (STAMP_SETS).

    >>> [c.params for c in stamp("full") if c.name == "kmeans-high"]
    [{'size': 'paper-high'}]
    >>> [c.params for c in stamp("real") if c.name == "vacation-high"]
    [{'size': 'real-high'}]
    """
    return tuple(Case(name, app, {"size": STAMP_SETS[scale] + flavour})
                 for name, app, flavour in STAMP_CASES)


FIG_3_7 = Experiment(
    id="fig-3.7",
    title="STAMP: execution time of the Pot modes relative to TL2",
    reproduces="Pot thesis Figure 3.7: the cost of determinism, execution time of Pot, "
               "Pot* (pot-fast), Pot- (pot-ordered), PoGL and DeSTM normalized to TL2 on "
               "the STAMP applications",
    quick=Grid(cases=stamp("quick"), variants=("tl2", *POT_MODES), threads=(2,), repeat=3),
    full=Grid(cases=stamp("full"), variants=("tl2", *POT_MODES), threads=(2,), repeat=3),
    render=NormalizedBars(baseline="tl2", value="elapsed"),
    requires=("tl2", "pot"),
    provisional=False,
    notes="2 cores instead of the thesis's many-core machine; execution time, lower is "
          "better.  Quick: STAMP's small (simulator) inputs, runs of milliseconds, so "
          "start-up costs weigh; full: the published evaluation's inputs (seconds to "
          "two minutes per run, about 2.5 hours for the grid on 2 cores, hence 3 "
          "repeats; the inputs are generated on first use).",
)

#: Share of each thread's time spent waiting in the sequencer, in percent:
#: wait_turn_ns summed over the threads / (threads x elapsed).
WAIT_PERCENT = (Column("wait_ns_per_thread", "wait_turn_ns", "threads"),
                Column("wait_ns_per_s", "wait_ns_per_thread", "elapsed"),
                Column("wait_percent", "wait_ns_per_s", 1e7))

FIG_3_8 = Experiment(
    id="fig-3.8",
    title="STAMP: share of time waiting for the turn, Pot next to DeSTM",
    reproduces="Pot thesis Figure 3.8: the time threads spend waiting for their turn in "
               "DeSTM and in Pot on the STAMP applications (DeSTM's rounds make every "
               "thread wait for the slowest; Pot's fast mode and live promotion let the "
               "turn move on)",
    quick=Grid(cases=stamp("quick"), variants=("pot", "pot-ordered", "destm"), threads=(2,),
               repeat=3),
    full=Grid(cases=stamp("full"), variants=("pot", "pot-fast", "pot-ordered", "destm"),
              threads=(2,), repeat=3),
    render=Derived(WAIT_PERCENT, Bars(value="wait_percent",
                                      ylabel="% of thread time waiting for the turn")),
    requires=("pot",),
    provisional=False,
    notes="Waiting: time in the sequencer (the turn; in destm also rounds and round-mates), "
          "summed over the threads, over threads x execution time.  2 threads on 2 cores: "
          "a descheduled turn holder makes the others wait longer than on a dedicated "
          "machine.  Reproduced with fig-3.7 (which the registry runs first), it takes "
          "fig-3.7's runs of its points: one set of runs for both figures.",
)


def stmbench7(mix: str) -> Case:
    """STMBench7, small structure, long traversals on, structural
    modifications off (stmbench7/README.md), one operation mix: r
    (read-dominated), rw (read-write), w (write-dominated)."""
    return Case(f"sb7-{mix}", "stmbench7", {"mix": mix, "size": "small",
                                            "traversals": "true", "structural": "false"})


#: The three operation mixes of Figures 3.10 and 3.12.
STMBENCH7_MIXES: tuple[Case, ...] = (stmbench7("r"), stmbench7("rw"), stmbench7("w"))


def stmbench7_grid(variants: tuple[str, ...], threads: tuple[int, ...], full: bool) -> Grid:
    """The mixes, 3 repeats: full, runs of 10 s (stmbench7/README.md's);
    quick, 0.3 s (a few hundred operations).

    >>> stmbench7_grid(("tl2",), (2,), full=False).params
    {'duration': 300}
    """
    return Grid(cases=STMBENCH7_MIXES, variants=variants, threads=threads, repeat=3,
                params={"duration": 10000 if full else 300})


FIG_3_10 = Experiment(
    id="fig-3.10",
    title="STMBench7: throughput of the Pot modes relative to TL2",
    reproduces="Pot thesis Figure 3.10: STMBench7 throughput of Pot and its variants "
               "normalized to TL2 on the read-dominated, read-write and write-dominated "
               "mixes",
    quick=stmbench7_grid(("tl2", "pot", "pot-fast", "pot-ordered", "pot-round-robin"), (2,),
                         full=False),
    full=stmbench7_grid(("tl2", *POT_MODES, "pot-round-robin"), (2,), full=True),
    render=NormalizedBars(baseline="tl2"),
    requires=("tl2", "pot"),
    provisional=False,
    notes="Throughput: successful operations per second, 2 threads.  Full: the runs of "
          "stmbench7/README.md (10 s, 3 repeats); quick: 0.3 s runs, a few hundred "
          "operations per run, so expect a wide spread.  STMBench7 runs Pot's modes "
          "under the weighted order (not in the thesis), each operation weighted by its "
          "run time; pot-round-robin is pot in the thesis's own order.",
)

FIG_3_12 = Experiment(
    id="fig-3.12",
    title="STMBench7: speedup over 1-thread TL2",
    reproduces="Pot thesis Figure 3.12: STMBench7 scalability, the throughput of TL2 and "
               "Pot as threads grow over single-threaded TL2's, on the read-dominated, "
               "read-write and write-dominated mixes",
    quick=stmbench7_grid(("tl2", "pot", "pot-round-robin"), (1, 2), full=False),
    full=stmbench7_grid(("gl", "tl2", "pot", "pot-round-robin"), (1, 2, 4), full=True),
    render=Speedup(baseline="tl2"),
    requires=("tl2", "pot"),
    provisional=False,
    notes="Successful operations per second over 1-thread tl2's.  2 cores: 4 threads "
          "(full grid) oversubscribe the machine.  gl, one global lock around each "
          "operation (no parallelism, plain loads inline), is the line an STM must "
          "beat; the wider "
          "matrix with the coarse and medium lock builds is stmbench7/measure.py's.  "
          "Reproduced with fig-3.10 (which the registry runs first), the 2-thread points "
          "the two share are fig-3.10's runs.",
)

#: Share of hardware transactions that aborted persistently, in percent:
#: htm_persistent / htm_starts (the hardware said a retry would fail too:
#: capacity, an unsupported instruction, an explicit abort).
PERSISTENT_PERCENT = (Column("persistent_per_start", "htm_persistent", "htm_starts"),
                      Column("persistent_percent", "persistent_per_start", 0.01))

FIG_3_13 = Experiment(
    id="fig-3.13",
    title="STAMP on Intel RTM: share of hardware transactions aborted persistently",
    reproduces="Pot thesis Figure 3.13: the persistent aborts of best-effort HTM on the "
               "STAMP applications, transactions the hardware can never commit (capacity, "
               "unsupported instructions) and that must run in software: with Pot, in the "
               "fast mode at their turn",
    quick=Grid(cases=stamp("quick"), variants=("rtm", "pot-rtm"), threads=(2,), repeat=3),
    full=Grid(cases=stamp("real"), variants=("rtm", "pot-rtm"), threads=(2,), repeat=3),
    render=Derived(PERSISTENT_PERCENT,
                   Bars(value="persistent_percent",
                        ylabel="% of HTM starts aborted persistently")),
    requires=("rtm", "pot-rtm"),
    needs_rtm_cpu=True,
    provisional=True,
    notes="Needs a CPU with Intel RTM (skipped elsewhere): the project's machines come "
          "with it (Intel Xeon) and without (AMD EPYC).  Persistent: the abort status "
          "said a retry would fail too (htm_persistent over htm_starts).  Full: STAMP's "
          "README inputs for real machines (a ratio of counts, not a time: the paper "
          "inputs' hours would add little).",
)

FIG_3_14 = Experiment(
    id="fig-3.14",
    title="Pot on IBM POWER8 HTM: STAMP execution time relative to ROT",
    reproduces="Pot thesis Figure 3.14: Pot-HTM on the STAMP applications, execution "
               "time of Pot on POWER8 HTM (speculative transactions in hardware, the fast "
               "mode a rollback-only transaction) and of the software backends, "
               "normalized to POWER8 HTM with a global-lock fallback",
    quick=Grid(cases=stamp("quick"), variants=("rot", "pot-rot", "tl2", "pot"),
               threads=(2,), repeat=3),
    full=Grid(cases=stamp("full"), variants=("rot", "pot-rot", "tl2", "pot"),
              threads=(2,), repeat=5),
    render=NormalizedBars(baseline="rot", value="elapsed"),
    requires=("rot", "pot-rot"),
    provisional=True,
    notes="Needs a POWER8 machine: here the rot backends are cross-built for "
          "powerpc64le and tested under qemu-user, where tbegin. always fails, so "
          "there are no timings to plot.  Execution time, lower is better.",
)

POT_THESIS_EXPERIMENTS: tuple[Experiment, ...] = (
    FIG_3_6, FIG_3_7, FIG_3_8, FIG_3_10, FIG_3_12, FIG_3_13, FIG_3_14,
)
