#!/usr/bin/env python3
"""STAMP input sets and input-file generators.

Every application has four argument sets (two applications have a second,
high-contention variant of each):

  test    the smallest runs, used by the ctest suite
  small   STAMP's recommended simulator inputs ("sim" in STAMP's README)
  real    STAMP's README inputs for real machines ("real"; kmeans on the
          n16384-d24 points and yada on a 100,000-point mesh)
  paper   the inputs of the published evaluation this project reproduces

Input files are generated, never shipped: on first use they are written
into an input directory (default: <build>/stamp/inputs) and reused after,
but never trusted: beside each one a stamp file (<name>.stamp) records
the recipe that made it and each file's size and SHA-256, and a file whose
stamp is missing or disagrees (deleted, truncated, edited, made by another
recipe) is generated again.
The generators follow the published recipes of STAMP's generate.py scripts
(kmeans: Gaussian clusters; labyrinth: random source/destination pairs),
seeded with 0 as STAMP's were, so the files equal the ones STAMP ships.
yada's meshes (Delaunay triangulations of random points with their convex
hull as boundary, like STAMP's Triangle meshes) come from the build's
yada-meshgen tool.

    inputs.py list                          the table of sets
    inputs.py args <app> <set> [--dir D] [--json]
                                            the arguments (generating files);
                                            --json: {"args": [...], "files": [...]}
    inputs.py kmeans <rows> <dims> <centers> <out>
    inputs.py labyrinth <x> <y> <z> <paths> <out>
"""

import argparse
import hashlib
import json
import os
import random
import subprocess
import sys


# ---------------------------------------------------------------- generators

def write_kmeans(rows, dims, centers, out):
    """Points around `centers` random centres in [0,1)^dims, Gaussian with
    sigma = (1/centers)^3; one line per point: its number, then the values
    as Python 2's str(float) wrote them (%.12g)."""
    rng = random.Random(0)
    centre_values = [[rng.random() for _ in range(dims)] for _ in range(centers)]
    sigma = (1.0 / centers) ** 3
    lines = []
    for row in range(1, rows + 1):
        # Python 2's choice(): an index from one random() draw.
        centre = centre_values[int(rng.random() * centers)]
        values = ['%.12g' % (centre[d] + rng.gauss(0, sigma)) for d in range(dims)]
        lines.append('%d %s\n' % (row, ' '.join(values)))
    _write_atomically(out, ''.join(lines))


def write_labyrinth(x, y, z, paths, out):
    """A maze of x*y*z cells with `paths` random source -> destination
    pairs (no walls), in STAMP's labyrinth input format."""
    rng = random.Random(0)

    def randint(a, b):   # Python 2's randint, one random() draw
        return a + int(rng.random() * (b - a + 1))

    def point():
        return (randint(0, x - 1), randint(0, y - 1), randint(0, z - 1))

    lines = ['# Dimensions (x, y, z)\n', 'd  %d %d %d\n' % (x, y, z), '\n',
             '# Paths: Sources (x, y, z) -> Destinations (x, y, z)\n']
    for _ in range(paths):
        src = point()
        dst = point()
        while dst == src:
            dst = point()
        lines.append('p   %3i %3i %1i   %3i %3i %1i\n' % (src + dst))
    _write_atomically(out, ''.join(lines))


def _write_atomically(out, text):
    os.makedirs(os.path.dirname(os.path.abspath(out)), exist_ok=True)
    tmp = out + '.tmp%d' % os.getpid()
    with open(tmp, 'w') as f:
        f.write(text)
    os.replace(tmp, out)


# ---------------------------------------------------------------- stamps
# A stamp is what makes a generated file trustworthy: the recipe it was made
# by and the size and SHA-256 of every file it made.  Files are replaced
# atomically and the stamp written last, so a stamp never vouches for a
# file that another recipe or an interrupted generation left.

STAMP_SUFFIX = '.stamp'


def _digest(path):
    h = hashlib.sha256()
    with open(path, 'rb') as f:
        for block in iter(lambda: f.read(1 << 20), b''):
            h.update(block)
    return h.hexdigest()


def _file_record(path):
    return {'size': os.path.getsize(path), 'sha256': _digest(path)}


def write_stamp(stamp, recipe, paths):
    """Record that recipe made paths (their sizes and checksums)."""
    record = {'recipe': recipe,
              'files': {os.path.basename(p): _file_record(p) for p in paths}}
    _write_atomically(stamp, json.dumps(record, indent=1, sort_keys=True) + '\n')


def stamp_matches(stamp, recipe, paths):
    """Whether stamp says recipe made paths and each file is as recorded
    (same size, same SHA-256); False if anything is missing or unreadable."""
    try:
        with open(stamp) as f:
            record = json.load(f)
        if not isinstance(record, dict) or record.get('recipe') != recipe:
            return False
        files = record.get('files')
        if not isinstance(files, dict) or len(files) != len(paths):
            return False
        for p in paths:
            want = files.get(os.path.basename(p))
            if not isinstance(want, dict) or os.path.getsize(p) != want.get('size'):
                return False
            if _digest(p) != want.get('sha256'):
                return False
        return True
    except (OSError, ValueError):
        return False


# ---------------------------------------------------------------- input files

class InputFile:
    """A generated input file, named as STAMP names it; recipe says how it
    is made (the stamp records it)."""

    def __init__(self, name, recipe, generate):
        self.name = name
        self.recipe = recipe
        self._generate = generate

    def path(self, input_dir):
        """The argument the application gets."""
        return os.path.join(input_dir, self.name)

    def files(self, input_dir):
        """The files this input consists of."""
        return [self.path(input_dir)]

    def stamp_path(self, input_dir):
        return self.path(input_dir) + STAMP_SUFFIX

    def is_valid(self, input_dir):
        """Whether the files are there, as the stamp records them."""
        return stamp_matches(self.stamp_path(input_dir), self.recipe,
                             self.files(input_dir))

    def ensure(self, input_dir):
        """The argument, after (re)generating the files unless they check out."""
        if not self.is_valid(input_dir):
            print('generating %s ...' % self.path(input_dir), file=sys.stderr)
            self._make(input_dir)
            write_stamp(self.stamp_path(input_dir), self.recipe, self.files(input_dir))
        return self.path(input_dir)

    def _make(self, input_dir):
        self._generate(self.path(input_dir))


class MeshInput(InputFile):
    """A yada mesh: <prefix>.node/.ele/.poly, made by the yada-meshgen tool
    that the build compiles (<build>/stamp/yada-meshgen, or $STAMP_MESHGEN)."""

    EXTENSIONS = ('.node', '.ele', '.poly')

    def __init__(self, num_points, seed=0):
        InputFile.__init__(self, 'random-%d.2' % num_points,
                           'yada-meshgen %d %d' % (num_points, seed), None)
        self.num_points = num_points
        self.seed = seed

    def files(self, input_dir):
        prefix = self.path(input_dir)
        return [prefix + ext for ext in self.EXTENSIONS]

    def _make(self, input_dir):
        prefix = self.path(input_dir)
        tool = os.environ.get('STAMP_MESHGEN') or os.path.join(
            os.path.dirname(os.path.abspath(input_dir)), 'yada-meshgen')
        if not os.path.exists(tool):
            raise SystemExit('%s not found: build it (cmake --build <build> --target '
                             'yada-meshgen) or set STAMP_MESHGEN' % tool)
        os.makedirs(input_dir, exist_ok=True)
        # Made under a temporary prefix, then moved into place file by file.
        tmp = prefix + '.tmp%d' % os.getpid()
        subprocess.run([tool, str(self.num_points), str(self.seed), tmp], check=True,
                       stdout=subprocess.DEVNULL)
        for ext in self.EXTENSIONS:
            os.replace(tmp + ext, prefix + ext)


def kmeans_recipe(rows, dims, centers):
    return 'kmeans %d %d %d' % (rows, dims, centers)


def labyrinth_recipe(x, y, z, n):
    return 'labyrinth %d %d %d %d' % (x, y, z, n)


def kmeans_file(rows, dims, centers):
    return InputFile('random-n%d-d%d-c%d.txt' % (rows, dims, centers),
                     kmeans_recipe(rows, dims, centers),
                     lambda out: write_kmeans(rows, dims, centers, out))


def labyrinth_file(x, y, z, n):
    return InputFile('random-x%d-y%d-z%d-n%d.txt' % (x, y, z, n),
                     labyrinth_recipe(x, y, z, n),
                     lambda out: write_labyrinth(x, y, z, n, out))


# ---------------------------------------------------------------- the sets
# Arguments without the thread-count option (THREAD_FLAG appends it).

THREAD_FLAG = {
    'vacation': '-c', 'kmeans': '-p', 'genome': '-t', 'intruder': '-t',
    'ssca2': '-t', 'labyrinth': '-t', 'yada': '-t', 'bayes': '-t',
}

SETS = {
    'vacation': {
        'test': ['-n4', '-q60', '-u90', '-r4096', '-t16384'],
        'small': ['-n2', '-q90', '-u98', '-r16384', '-t4096'],
        'small-high': ['-n4', '-q60', '-u90', '-r16384', '-t4096'],
        'real': ['-n2', '-q90', '-u98', '-r1048576', '-t4194304'],
        'real-high': ['-n4', '-q60', '-u90', '-r1048576', '-t4194304'],
        'paper': ['-n8', '-q90', '-u98', '-r1048576', '-t4194304'],
        'paper-high': ['-n8', '-q10', '-u90', '-r1048576', '-t4194304'],
    },
    'kmeans': {
        'test': ['-m8', '-n4', '-t0.001', '-i', kmeans_file(2048, 16, 16)],
        'small': ['-m40', '-n40', '-t0.05', '-i', kmeans_file(2048, 16, 16)],
        'small-high': ['-m15', '-n15', '-t0.05', '-i', kmeans_file(2048, 16, 16)],
        'real': ['-m40', '-n40', '-t0.00001', '-i', kmeans_file(16384, 24, 16)],
        'real-high': ['-m15', '-n15', '-t0.00001', '-i', kmeans_file(16384, 24, 16)],
        'paper': ['-m40', '-n40', '-t0.00001', '-i', kmeans_file(65536, 32, 16)],
        'paper-high': ['-m15', '-n15', '-t0.00001', '-i', kmeans_file(65536, 32, 16)],
    },
    'genome': {
        'test': ['-g1024', '-s32', '-n16384'],
        'small': ['-g256', '-s16', '-n16384'],
        'real': ['-g16384', '-s64', '-n16777216'],
        'paper': ['-g65536', '-s32', '-n16777216'],
    },
    'intruder': {
        'test': ['-a10', '-l16', '-n4096', '-s1'],
        'small': ['-a10', '-l4', '-n2038', '-s1'],
        'real': ['-a10', '-l128', '-n262144', '-s1'],
        'paper': ['-a10', '-l2048', '-n8192', '-s1'],
    },
    'ssca2': {
        'test': ['-s13', '-i1.0', '-u1.0', '-l3', '-p3'],
        'small': ['-s13', '-i1.0', '-u1.0', '-l3', '-p3'],
        'real': ['-s20', '-i1.0', '-u1.0', '-l3', '-p3'],
        'paper': ['-s20', '-i1.0', '-u1.0', '-l3', '-p3'],
    },
    'labyrinth': {
        'test': ['-i', labyrinth_file(32, 32, 3, 96)],
        'small': ['-i', labyrinth_file(32, 32, 3, 96)],
        'real': ['-i', labyrinth_file(512, 512, 7, 512)],
        'paper': ['-i', labyrinth_file(512, 512, 7, 512)],
    },
    'yada': {
        'test': ['-a20', '-i', MeshInput(633)],
        'small': ['-a20', '-i', MeshInput(633)],
        'real': ['-a15', '-i', MeshInput(100000)],
        'paper': ['-a15', '-i', MeshInput(1000000)],
    },
    'bayes': {
        'test': ['-v32', '-r1024', '-n2', '-p20', '-s0', '-i2', '-e2'],
        'small': ['-v32', '-r1024', '-n2', '-p20', '-s0', '-i2', '-e2'],
        'real': ['-v32', '-r4096', '-n10', '-p40', '-i2', '-e8', '-s1'],
        'paper': ['-v32', '-r4096', '-n10', '-p40', '-i2', '-e8', '-s1'],
    },
}


def _set_spec(app, set_name):
    try:
        return SETS[app][set_name]
    except KeyError:
        raise SystemExit('unknown app/set %s/%s; known: %s' % (
            app, set_name, ', '.join('%s/%s' % (a, s) for a in SETS for s in SETS[a])))


def app_args(app, set_name, input_dir, generate=True):
    """The argument list of app at set_name, input files made (or made
    again) if they do not check out against their stamps."""
    args = []
    for a in _set_spec(app, set_name):
        if isinstance(a, InputFile):
            args.append(a.ensure(input_dir) if generate else a.path(input_dir))
        else:
            args.append(a)
    return args


def app_files(app, set_name, input_dir):
    """The files (stamps included) that app's arguments at set_name rely on."""
    files = []
    for a in _set_spec(app, set_name):
        if isinstance(a, InputFile):
            files += a.files(input_dir) + [a.stamp_path(input_dir)]
    return files


def default_input_dir():
    here = os.path.dirname(os.path.abspath(__file__))
    return os.path.join(os.path.dirname(here), 'build', 'stamp', 'inputs')


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    sub = ap.add_subparsers(dest='cmd', required=True)
    sub.add_parser('list', help='print the table of sets')
    a = sub.add_parser('args', help='print the arguments of an app at a set')
    a.add_argument('app')
    a.add_argument('set')
    a.add_argument('--dir', default=default_input_dir(), help='input directory')
    a.add_argument('--json', action='store_true',
                   help='print {"args": [...], "files": [...]} (files: what the '
                        'arguments rely on, stamps included)')
    k = sub.add_parser('kmeans', help='write a kmeans input file')
    for n in ('rows', 'dims', 'centers'):
        k.add_argument(n, type=int)
    k.add_argument('out')
    lab = sub.add_parser('labyrinth', help='write a labyrinth input file')
    for n in ('x', 'y', 'z', 'paths'):
        lab.add_argument(n, type=int)
    lab.add_argument('out')
    o = ap.parse_args(argv)

    if o.cmd == 'list':
        for app in SETS:
            for s, spec in SETS[app].items():
                shown = [x.name if isinstance(x, InputFile) else x for x in spec]
                print('%-10s %-11s %s %s<threads>' % (app, s, ' '.join(shown),
                                                     THREAD_FLAG[app]))
    elif o.cmd == 'args':
        args = app_args(o.app, o.set, o.dir)
        if o.json:
            print(json.dumps({'args': args, 'files': app_files(o.app, o.set, o.dir)}))
        else:
            print(' '.join(args))
    elif o.cmd == 'kmeans':
        write_kmeans(o.rows, o.dims, o.centers, o.out)
        write_stamp(o.out + STAMP_SUFFIX, kmeans_recipe(o.rows, o.dims, o.centers), [o.out])
    elif o.cmd == 'labyrinth':
        write_labyrinth(o.x, o.y, o.z, o.paths, o.out)
        write_stamp(o.out + STAMP_SUFFIX, labyrinth_recipe(o.x, o.y, o.z, o.paths), [o.out])


if __name__ == '__main__':
    main(sys.argv[1:])
