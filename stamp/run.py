#!/usr/bin/env python3
"""Run a STAMP application of this project at one of its input sets.

    run.py <app> <set> [--backend tl2] [--threads N] [--repeat R]
                       [--build-dir build] [--input-dir DIR] [--quiet]

Builds nothing: the binaries come from the CMake build (target `stamp`),
<build-dir>/stamp/<app>-<backend>.  Input files are generated on first use
(see inputs.py) and cached in the input directory.

Each run prints the application's own output, whose last line is one JSON
object (app, args, backend, threads, time, commits, aborts by cause, check
result).  With --repeat R the application runs R times and a summary line
gives the median time; the exit status is non-zero if any run failed its
self-check.

Examples:
    stamp/run.py vacation test --backend tl2 --threads 2
    stamp/run.py kmeans small-high --backend pot --threads 4 --repeat 3
    POTM_HTM_FALLBACK_ONLY=1 stamp/run.py genome small --backend rtm
"""

import argparse
import json
import os
import statistics
import subprocess
import sys

sys.dont_write_bytecode = True   # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import inputs  # noqa: E402


def find_build_dir(given):
    if given:
        return given
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    for name in ('build', 'build-stamp'):
        d = os.path.join(root, name)
        if os.path.isdir(os.path.join(d, 'stamp')):
            return d
    return os.path.join(root, 'build')


def run_once(binary, args, quiet):
    proc = subprocess.run([binary] + args, stdout=subprocess.PIPE, text=True)
    out = proc.stdout
    if not quiet:
        sys.stdout.write(out)
        sys.stdout.flush()
    record = None
    for line in reversed(out.splitlines()):
        if line.startswith('{"app"'):
            record = json.loads(line)
            break
    return proc.returncode, record


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('app', choices=sorted(inputs.SETS))
    ap.add_argument('set')
    ap.add_argument('--backend', default='tl2')
    ap.add_argument('--threads', type=int, default=1)
    ap.add_argument('--repeat', type=int, default=1)
    ap.add_argument('--build-dir')
    ap.add_argument('--input-dir')
    ap.add_argument('--quiet', action='store_true', help='print only the summary')
    o = ap.parse_args(argv)

    build = find_build_dir(o.build_dir)
    binary = os.path.join(build, 'stamp', '%s-%s' % (o.app, o.backend))
    if not os.path.exists(binary):
        raise SystemExit('%s not found: build it with cmake --build %s --target stamp'
                         % (binary, build))
    input_dir = o.input_dir or os.path.join(build, 'stamp', 'inputs')
    args = inputs.app_args(o.app, o.set, input_dir)
    args.append('%s%d' % (inputs.THREAD_FLAG[o.app], o.threads))

    times, failed = [], 0
    for _ in range(o.repeat):
        rc, record = run_once(binary, args, o.quiet)
        if rc != 0 or record is None or record.get('check') != 'pass':
            failed += 1
            print('run failed: exit status %d' % rc, file=sys.stderr)
        elif record is not None:
            times.append(record['time'])
    if o.repeat > 1 or o.quiet:
        summary = {'app': o.app, 'set': o.set, 'backend': o.backend, 'threads': o.threads,
                   'runs': o.repeat, 'failed': failed,
                   'median_time': statistics.median(times) if times else None,
                   'times': times}
        print(json.dumps(summary))
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
