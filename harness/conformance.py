#!/usr/bin/env python3
"""Conformance driver: upstream jtreg groups against an ET-JDK image with the
edge-triggered read pollers off and on, on platform and virtual test threads.

jtreg does the work: selection (-exclude problem lists, -k, -a, -listtests),
test threads (-testThreadFactory), the switches (-vmoption), work and report
directories (-w, -r, -retain) and the results (JTreport/text/summary.txt).
This keeps the plan, the classification and the report: a test that passes
with the feature off and fails with it on is a BUG (re-run once, on and off,
to tell reproducible from flaky; exit status 2); one that fails with it off
too belongs in a problem list. Standard library only; tests: test_conformance.py.
"""

import datetime
import hashlib
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from types import SimpleNamespace

PROG = 'conformance.py'
TOP = Path(os.path.abspath(__file__)).parent.parent
FACTORY_DIR = TOP / 'build/jtreg-test-thread-factory'   # the Virtual factory's jar, shared by work directories

# The plans: factory, group, configs. A group is a test path of the tree, or
# PATH!SUB,SUB: PATH without its subdirectories SUB (groups of their own).
FULL_PLAN = """
platform test/jdk/java/net/vthread                   off et-mode2 et-mode1 et-mode3 mode4
platform test/jdk/java/net/Socket                    off et-mode2 et-mode1 et-mode3 mode4
platform test/jdk/java/net/ServerSocket              off et-mode2 et-mode1 et-mode3 mode4
platform test/jdk/java/net/DatagramSocket            off et-mode2 et-mode1 et-mode3 mode4
platform test/jdk/java/nio/channels                  off et-mode2 et-mode1 et-mode3 mode4
platform test/jdk/java/lang/Thread/virtual           off et-mode2 et-mode1 et-mode3 mode4
virtual  test/jdk/java/net/vthread                   off et-mode2 et-mode1 et-mode3 mode4
virtual  test/jdk/java/net/Socket                    off et-mode2 et-mode1 et-mode3 mode4
virtual  test/jdk/java/net/ServerSocket              off et-mode2 et-mode1 et-mode3 mode4
virtual  test/jdk/java/net/DatagramSocket            off et-mode2 et-mode1 et-mode3 mode4
virtual  test/jdk/java/net/SocketInputStream         off et-mode2 et-mode1 et-mode3 mode4
virtual  test/jdk/java/nio/channels                  off et-mode2 et-mode1 et-mode3 mode4
virtual  test/jdk/java/lang/Thread/virtual           off et-mode2 et-mode1 et-mode3 mode4
platform test/jdk/java/net/httpclient/http3          off et-mode2 et-mode1 et-mode3 mode4
platform test/jdk/java/net/httpclient/http2          off et-mode2 et-mode1 et-mode3 mode4
platform test/jdk/java/net/httpclient!http2,http3    off et-mode2
"""
FULL_CONFIGS = ['off', 'et-mode2', 'et-mode1', 'et-mode3', 'mode4']
# For every poller change. Without 'off' by default: a test that fails with the
# feature on is re-run with it off.
QUICK_PLAN = """
platform test/jdk/java/net/vthread                   off et-mode2 et-mode1 mode4
platform test/jdk/java/nio/channels/vthread          off et-mode2 et-mode1 mode4
virtual  test/jdk/java/net/Socket                    off et-mode2 et-mode1 mode4
virtual  test/jdk/java/nio/channels/SocketChannel    off et-mode2 et-mode1 mode4
virtual  test/jdk/java/nio/channels/DatagramChannel  off et-mode2 et-mode1 mode4
platform test/jdk/java/net/httpclient/http3          off et-mode2 et-mode1 mode4
platform test/jdk/java/lang/Thread/virtual           off mode4
"""
QUICK_CONFIGS = ['et-mode2', 'et-mode1', 'mode4']

# The configs, in report order: title, jtreg options. 'off' is explicit: an
# explicit -Djdk.pollerMode=1|2 (some @run lines have one) turns ET on otherwise.
ET = '-vmoption:-Djdk.pollerEdgeTriggered=true'
CONFIGS = {
    'off': ('off', ['-vmoption:-Djdk.pollerEdgeTriggered=false']),
    'et': ('ET on (default mode)', [ET]),
    'et-mode2': ('ET on, pollerMode 2', [ET, '-vmoption:-Djdk.pollerMode=2']),
    'et-mode1': ('ET on, pollerMode 1', [ET, '-vmoption:-Djdk.pollerMode=1']),
    'et-mode3': ('ET on, pollerMode 3', [ET, '-vmoption:-Djdk.pollerMode=3']),
    'mode4': ('carrier polling, pollerMode 4 (ET)', ['-vmoption:-Djdk.pollerMode=4']),
}
FACTORIES = {'platform': "platform test threads (jtreg's default)",
             'virtual': 'virtual test threads (-testThreadFactory:Virtual)'}
FAILING = ('Failed', 'Error')
PL_MARK = '# -- entries --'

USAGE = f"""Usage: {PROG} --jdk IMAGE --jtreg JTREG_HOME --src TREE --out FILE [options]

Runs upstream jtreg groups of TREE against IMAGE in each config and test-thread
factory of a plan and writes a markdown report (FILE): a table per factory, the
BUGs (tests that pass with the feature off and fail with it on), the tests that
fail with it off too, machine info, 'java -version' and the jtreg commands.

  --quick                the quick plan (work directory build/conformance-quick)
  --groups "G ..."       these test paths of TREE instead of a plan (PATH!SUB,...:
                         PATH without its subdirectories SUB), in every config of
                         --configs (default: {' '.join(FULL_CONFIGS)}) and
                         factory of --factories (default: platform)
  --configs "C ..."      among off, et (feature on, default mode), et-mode1,
                         et-mode2, et-mode3, mode4 (carrier polling, ET); with a
                         plan, only these of each group's (default: all of them;
                         --quick: {' '.join(QUICK_CONFIGS)})
  --factories "F ..."    among platform (jtreg's own test threads) and virtual
                         (-testThreadFactory:Virtual, built from the tree's
                         test/jtreg_test_thread_factory, with upstream's
                         ProblemList-Virtual.txt); with a plan, only their groups
  --resume               keep the group/config runs that completed before (same
                         jtreg command, same image); run the others
  --record DIR           copy each completed run to DIR (its summary, exit status,
                         time and the .jtr of each failure), and with --resume
                         keep a run from DIR when the work directory has none: a
                         run spread over fresh clones (commit DIR between them),
                         in any directory (the clone's, image's, tree's and
                         jtreg's paths in a command compare by name)
  --image-id ID          what --resume compares instead of a hash of the image's
                         java -version, modules and libraries: an image rebuilt
                         from the same patch series on a fresh machine is not the
                         same bytes (make conformance passes the series' id)
  --stop-after MIN       start no jtreg run after MIN minutes (the runs not
                         started are "not run"; --resume runs them later)
  --report-only          run nothing: report the completed runs ("not run": others)
  --dry-run              print the plan, each group's test count (jtreg
                         -listtests) and the jtreg commands; run no test
  --work DIR             work directory (default: build/conformance)
  --conc N               jtreg -conc (default: 2)
  --timeout-factor N     jtreg -timeoutFactor (default: 4)
  --problem-list FILE    ET-JDK's problem list for every run, next to upstream's
                         ProblemList.txt (default: test/conformance-problemlist.txt)
  --problem-list-virtual FILE
                         the same for the virtual factory's runs (default:
                         test/conformance-problemlist-virtual.txt)
  --update-problem-list  append the tests that fail with the feature off and on
                         (every config run) to their factory's problem list, with
                         the reason and bug id 0000000 (to fill in)
  --no-native            do not build the native test libraries
  --no-rerun             do not re-run failures with the feature on (to confirm
                         them, and to compare them with off when 'off' was not run)
  -h, --help             this help

The full plan (make conformance): factory, group, configs{FULL_PLAN}
The quick plan (make conformance-quick), configs {' '.join(QUICK_CONFIGS)} unless --configs:{QUICK_PLAN}
Exit status: 0 no BUG, 2 BUG(s) (or, with --no-rerun, failures with the feature
on not compared with it off), 1 usage or setup error."""


class Error(Exception):
    """A usage or setup error: exit status 1."""


def say(msg):
    print(f'{PROG}: {msg}', file=sys.stderr)


# -- options and plan -------------------------------------------------------------

VALUE_OPTIONS = ['jdk', 'jtreg', 'src', 'out', 'groups', 'configs', 'factories', 'work', 'conc',
                 'timeout-factor', 'problem-list', 'problem-list-virtual', 'record', 'image-id', 'stop-after']
FLAG_OPTIONS = ['quick', 'update-problem-list', 'no-native', 'no-rerun', 'resume', 'report-only', 'dry-run']


def parse_args(argv):
    """The options (paths absolute), or None for --help."""
    o = {k.replace('-', '_'): None for k in VALUE_OPTIONS} | {k.replace('-', '_'): False for k in FLAG_OPTIONS}
    o.update(conc='2', timeout_factor='4', problem_list=TOP / 'test/conformance-problemlist.txt',
             problem_list_virtual=TOP / 'test/conformance-problemlist-virtual.txt')
    args = list(argv)
    while args:
        a = args.pop(0)
        name = a[2:] if a.startswith('--') else ''
        if a in ('-h', '--help'):
            return None
        if name in FLAG_OPTIONS:
            o[name.replace('-', '_')] = True
        elif name in VALUE_OPTIONS:
            if not args or not args[0]:
                raise Error(f'option {a} needs a value (see --help)')
            o[name.replace('-', '_')] = args.pop(0)
        else:
            raise Error(f"unknown option '{a}' (see --help)")
    o = SimpleNamespace(**o)
    o.resume = o.resume or o.report_only
    for opt, what in (('jdk', 'IMAGE'), ('jtreg', 'JTREG_HOME'), ('src', 'TREE')):
        if not getattr(o, opt):
            raise Error(f'--{opt} {what} is required (see --help)')
    if not o.out and not o.dry_run:
        raise Error('--out FILE is required (see --help)')
    if not re.fullmatch(r'[1-9][0-9]*', o.conc):
        raise Error(f"--conc must be a positive integer, not '{o.conc}'")
    if not re.fullmatch(r'[0-9]+(\.[0-9]+)?', o.timeout_factor):
        raise Error(f"--timeout-factor must be a number, not '{o.timeout_factor}'")
    if o.stop_after is not None and not re.fullmatch(r'[0-9]+', o.stop_after):
        raise Error(f"--stop-after must be a number of minutes, not '{o.stop_after}'")
    if o.image_id is not None and not re.fullmatch(r'[A-Za-z0-9_.:+-]+', o.image_id):
        raise Error(f"--image-id must be letters, digits and _.:+- only, not '{o.image_id}'")
    o.configs, o.factories, o.groups = ((v or '').split() for v in (o.configs, o.factories, o.groups))
    for c in o.configs:
        if c not in CONFIGS:
            raise Error(f"unknown config '{c}' (expected off, et, et-mode1, et-mode2, et-mode3 or mode4)")
    for f in o.factories:
        if f not in FACTORIES:
            raise Error(f"unknown factory '{f}' (expected platform or virtual)")
    o.work = o.work or TOP / 'build' / ('conformance-quick' if o.quick else 'conformance')
    for k in ('jdk', 'jtreg', 'src', 'out', 'work', 'problem_list', 'problem_list_virtual', 'record'):
        if getattr(o, k):
            setattr(o, k, Path(os.path.abspath(getattr(o, k))))
    return o


def parse_plan(text):
    return [(f, g, cs) for f, g, *cs in (line.split() for line in text.splitlines() if line.strip())]


def select_rows(o):
    """The rows to run: (factory, group, [configs])."""
    if o.groups:
        return [(f, g, o.configs or FULL_CONFIGS) for g in o.groups for f in o.factories or ['platform']]
    plan, want = (QUICK_PLAN, o.configs or QUICK_CONFIGS) if o.quick else (FULL_PLAN, o.configs or FULL_CONFIGS)
    rows = [(f, g, [c for c in cs if c in want]) for f, g, cs in parse_plan(plan)
            if not o.factories or f in o.factories]
    rows = [r for r in rows if r[2]]
    if not rows:
        raise Error(f"--configs '{' '.join(o.configs)}' / --factories '{' '.join(o.factories)}' "
                    'select nothing of the plan (see the plans in --help)')
    return rows


def split_group(g):
    path, _, subs = g.partition('!')
    return path, [s for s in subs.split(',') if s]


def group_title(g):
    path, subs = split_group(g)
    return f'`{path.removeprefix("test/jdk/")}`' + (' (without ' + ', '.join(f'`{s}/`' for s in subs) + ')'
                                                     if subs else '')


def slug(g):
    path, subs = split_group(g)
    return path.removeprefix('test/jdk/').rstrip('/').replace('/', '_') + ('-without-' + '-'.join(subs) if subs else '')


def files_under(top):
    """A file, or the files under a directory (like find)."""
    return [top] if top.is_file() else [Path(d, f) for d, _, fs in os.walk(top) for f in fs]


def has_test(path):
    try:
        return re.search(r'@test(\s|$)', path.read_text(errors='replace'), re.M) is not None
    except OSError:
        return False


def group_args(src, g):
    """jtreg's test arguments for a group: its path, or for PATH!SUB,... the
    entries of PATH that hold tests (jtreg rejects one that holds none) but SUB."""
    path, subs = split_group(g)
    if not subs:
        return [path]
    return [f'{path}/{e.name}' for e in sorted((src / path).iterdir()) if e.name not in subs and (
        any(map(has_test, files_under(e))) if e.is_dir() else e.suffix in ('.java', '.sh', '.html') and has_test(e))]


def check_setup(o, rows):
    """The inputs are what they should be, or an Error naming the fix."""
    if not os.access(o.jdk / 'bin/java', os.X_OK):
        raise Error(f"no JDK image at '{o.jdk}' ({o.jdk}/bin/java missing); run: make images")
    if not os.access(o.jtreg / 'bin/jtreg', os.X_OK):
        raise Error(f"no jtreg at '{o.jtreg}' ({o.jtreg}/bin/jtreg missing or not executable)")
    if not (o.src / 'test/jdk/TEST.ROOT').is_file():
        raise Error(f"'{o.src}' is not a JDK source tree ({o.src}/test/jdk/TEST.ROOT missing)")
    for _, g, _ in rows:
        path, subs = split_group(g)
        if not (o.src / path).exists():
            raise Error(f"group '{g}' not found in {o.src} ({o.src}/{path} missing)")
        if not path.startswith('test/jdk/'):
            raise Error(f"group '{g}' is not under test/jdk (only test/jdk groups are supported)")
        for s in subs:
            if not (o.src / path / s).is_dir():
                raise Error(f"group '{g}': no subdirectory {s} in {o.src}/{path}")
        if not group_args(o.src, g):
            raise Error(f"group '{g}' has no tests")
    if any(f == 'virtual' for f, _, _ in rows):
        if not (o.src / 'test/jdk/ProblemList-Virtual.txt').is_file():
            raise Error(f"no {o.src}/test/jdk/ProblemList-Virtual.txt: the virtual factory needs upstream's "
                        f'problem list for it (is {o.src} an OpenJDK 21+ tree?)')
        if not (o.src / 'test/jtreg_test_thread_factory/src/share/classes/Virtual.java').is_file():
            raise Error(f'no test-thread factory source in the tree ({o.src}/test/jtreg_test_thread_factory/'
                        'src/share/classes/Virtual.java missing); --src must be an OpenJDK source tree')


# -- problem lists ------------------------------------------------------------------

def check_problem_list(path, src):
    """Every entry well formed, explained and naming a test of the tree (or an
    Error); returns the number of entries without an upstream bug id."""
    no_bug, why = 0, False
    for n, line in enumerate(path.read_text().splitlines(), 1):
        if not line.strip() or line.lstrip().startswith('#'):
            why = (why or bool(line.strip())) and line.strip() != PL_MARK   # a comment since the last entry
            continue
        where, words = f"{path}:{n}: '{line}'", line.split()
        if len(words) < 3:
            raise Error(f"{where}: expected '<test> <bug id(s)> <platforms>' "
                        '(e.g. java/net/Socket/Foo.java 8123456 linux-all)')
        test, bugs = words[0].partition('#')[0], words[1]
        if test.startswith(('test/', '/')):
            raise Error(f'{where}: the test path must be relative to test/jdk (java/net/..., not '
                        'test/jdk/java/net/...): jtreg would not match it')
        if not (src / 'test/jdk' / test).is_file():
            raise Error(f'{where}: no test {test} in {src}/test/jdk; fix the path or remove the entry')
        if not re.fullmatch(r'[0-9]+(,[0-9]+)*', bugs):
            raise Error(f"{where}: bug id '{bugs}' is not numeric (the upstream JBS id, or 0000000 while "
                        'none is known)')
        if not why:
            raise Error(f'{where}: no comment above the entry saying why it is there')
        no_bug, why = no_bug + ('0000000' in bugs.split(',')), False
    return no_bug


def entries(text):
    return [line.split()[0] for line in text.splitlines() if line.strip() and not line.lstrip().startswith('#')]


def problem_list_additions(both, status, reason, existing, stamp):
    """{factory: text to append to its problem list} for the tests that fail
    with the feature off and on; both: [(factory, test)], existing: {factory:
    text}, stamp: 'date, kernel'. The platform list covers both factories."""
    platform, add = {t for f, t in both if f == 'platform'}, {}
    for f, t in both:
        if not (f == 'virtual' and t in platform) and t not in entries(existing.get(f, '')):
            add[f] = add.get(f, '') + (
                f"# fails with the feature off and on, {f} test threads ({stamp}): {status[(f, 'off', t)]}. "
                f"{reason.get((f, 'off', t), '')[:200]}\n"
                '# TODO: the upstream bug id (https://bugs.openjdk.org), then replace 0000000\n'
                f'{t} 0000000 generic-all\n')
    return add


# -- results ------------------------------------------------------------------------

def read_summary(path):
    """{test: (status, reason)} of a jtreg summary.txt (none: empty)."""
    try:
        lines = path.read_text(errors='replace').splitlines()
    except OSError:
        return {}
    matches = (re.fullmatch(r'(\S+)\s+(Passed|Failed|Error)\.\s?(.*)', x) for x in lines)
    return {m[1]: (m[2], m[3]) for m in matches if m}


def jtr_path(d, test):
    """The .jtr of a test id in run directory d: Foo.java#id -> JTwork/Foo_id.jtr."""
    name, _, tid = test.partition('#')
    return d / 'JTwork' / (os.path.splitext(name)[0] + (f'_{tid}' if tid else '') + '.jtr')


def classify(status, configs, factories):
    """status: {(factory, config, test): Passed|Failed|Error}. Returns bugs,
    no_off: [(factory, config, test)] failing with config and passing with off
    / with no result with off; both, off_only: [(factory, test)] failing with
    off, and with every other config run / not with every one."""
    bugs, no_off, both, off_only = [], [], [], []
    for f, t in sorted({(f, t) for f, _, t in status}, key=lambda ft: (factories.index(ft[0]), ft[1])):
        off = status.get((f, 'off', t))
        on = [status[(f, c, t)] for c in configs if c != 'off' and (f, c, t) in status]
        failing_on = [c for c in configs if c != 'off' and status.get((f, c, t)) in FAILING]
        for c in failing_on:
            if off == 'Passed':
                bugs.append((f, c, t))
            elif off is None:
                no_off.append((f, c, t))
        if off in FAILING:
            (both if len(failing_on) == len(on) else off_only).append((f, t))
    return SimpleNamespace(bugs=bugs, no_off=no_off, both=both, off_only=off_only)


def rerun_sets(failures):
    """{(factory, config): [tests]}: each failure with its config and with off."""
    sets = {}
    for f, c, t in failures:
        for key in ((f, c), (f, 'off')):
            sets.setdefault(key, set()).add(t)
    return {k: sorted(v) for k, v in sets.items()}


def command_key(command, paths):
    """command with each of paths (absolute path -> name) replaced by its name,
    longest first: the same run from a clone in another directory has the same key."""
    for p in sorted(paths, key=len, reverse=True):
        command = command.replace(p, paths[p])
    return command


def resume_state(d, command, key, image):
    """'keep': d holds a completed run of command (of its key, if d has one)
    made with image; 'stale': with another image; None: no completed run of it
    (one killed by a signal, exit status 128 + signal, did not complete)."""
    try:
        recorded, same = ((d / 'command-key.txt', key) if (d / 'command-key.txt').is_file()
                          else (d / 'command.txt', command))
        if int((d / 'rc').read_text()) >= 128 or recorded.read_text().rstrip('\n') != same:
            return None
    except (OSError, ValueError):
        return None
    image_txt = d / 'image.txt'
    return 'keep' if image_txt.is_file() and image_txt.read_text().rstrip('\n') == image else 'stale'


RECORD_FILES = ['command.txt', 'command-key.txt', 'image.txt', 'rc', 'seconds', 'finished', 'JTreport/text/summary.txt']
JTR_KEEP = 256 * 1024   # a recorded .jtr keeps its first and last JTR_KEEP / 2 bytes


def save_record(d, dst):
    """Copies the completed run in d to dst: RECORD_FILES, jtreg's 'Test results'
    line as jtreg.log, and the .jtr of each failure (at most JTR_KEEP bytes)."""
    shutil.rmtree(dst, ignore_errors=True)
    for name in RECORD_FILES:
        if (d / name).is_file():
            (dst / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(d / name, dst / name)
    log = (d / 'jtreg.log').read_text(errors='replace') if (d / 'jtreg.log').is_file() else ''
    (dst / 'jtreg.log').write_text(''.join(x + '\n' for x in re.findall(r'^Test results:.*$', log, re.M)))
    for t, (st, _) in read_summary(d / 'JTreport/text/summary.txt').items():
        jtr = jtr_path(d, t)
        if st != 'Passed' and jtr.is_file():
            data = jtr.read_bytes()
            if len(data) > JTR_KEEP:
                data = (data[:JTR_KEEP // 2] + f'\n[... {len(data) - JTR_KEEP} bytes left out by {PROG} ...]\n'
                        .encode() + data[-JTR_KEEP // 2:])
            out = dst / jtr.relative_to(d)
            out.parent.mkdir(parents=True, exist_ok=True)
            out.write_bytes(data)


def quote(cmd):
    """A command line to paste into a shell."""
    return ' '.join(a if re.fullmatch(r'[A-Za-z0-9_./:=@%+,#-]+', a) else "'" + a.replace("'", "'\\''") + "'"
                    for a in cmd)


def fmt_time(s):
    return f'{s // 60}:{s % 60:02d}'


# -- inputs of a run ----------------------------------------------------------------

def capture(cmd, env=None):
    try:
        return subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                              env=env and {**os.environ, **env}).stdout.decode(errors='replace')
    except OSError as e:
        return str(e)


def image_id(jdk):
    """What --resume compares: java -version and the image's modules and libraries."""
    h = hashlib.sha256(capture([str(jdk / 'bin/java'), '-version']).encode())
    for f in sorted(str(p) for p in [*jdk.glob('lib/*'), *jdk.glob('lib/*/*')]
                    if (p.name == 'modules' or p.name.endswith('.so')) and p.is_file() and not p.is_symlink()):
        h.update(f'{hashlib.sha256(Path(f).read_bytes()).hexdigest()}  {os.path.relpath(f, jdk)}\n'.encode())
    return h.hexdigest()[:16]


def test_names(rel, text):
    """jtreg's names of the tests of a file: rel for a file with one @test (with or
    without id=: jtreg then names it by the file alone), else rel#id for each @test
    (id<n> for the n-th one without id=)."""
    ids = [(re.search(r'id=(\S+)', x) or [None, ''])[1] for x in text.splitlines() if re.search(r'@test(\s|$)', x)]
    return [rel] if len(ids) == 1 else [f'{rel}#{i or f"id{n}"}' for n, i in enumerate(ids)]


def non_upstream_files(src, paths):
    """The files under paths that are not in the tree's first (pristine upstream)
    commit, ET-JDK's own; none when the tree is not a git repository."""
    def git(*args):
        try:
            r = subprocess.run(['git', '-C', str(src), *args], capture_output=True, text=True)
            return r.stdout.splitlines() if r.returncode == 0 else []
        except OSError:
            return []
    root = git('rev-list', '--max-parents=0', 'HEAD')
    if not root:
        return []
    upstream = set(git('ls-tree', '-r', '--name-only', root[-1], '--', *paths))
    return sorted({os.path.relpath(f, src) for p in paths for f in files_under(src / p)} - upstream)


def build_factory_jar(jdk, src, out_dir):
    """upstream's Virtual test-thread factory compiled with the image's javac
    (what make/test/BuildJtregTestThreadFactory.gmk does for the test image);
    kept until the sources or the JDK change."""
    sources = sorted((src / 'test/jtreg_test_thread_factory/src/share/classes').rglob('*.java'))
    jar, stamp = out_dir / 'jtregTestThreadFactory.jar', out_dir / 'built-with.txt'
    want = capture([str(jdk / 'bin/java'), '-version']) + hashlib.sha256(
        b''.join(map(Path.read_bytes, sources))).hexdigest()
    if jar.is_file() and stamp.is_file() and stamp.read_text() == want:
        return jar
    out_dir.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=out_dir) as tmp:
        log = capture([str(jdk / 'bin/javac'), '-d', f'{tmp}/classes', *map(str, sources)])
        log += capture([str(jdk / 'bin/jar'), '--create', '--file', f'{tmp}/f.jar', '-C', f'{tmp}/classes', '.'])
        if not Path(tmp, 'f.jar').is_file():
            raise Error(f'could not build the test-thread factory jar with {jdk}/bin/javac:\n{log}')
        os.replace(f'{tmp}/f.jar', jar)
    stamp.write_text(want)
    say(f'built the Virtual test-thread factory: {jar}')
    return jar


def build_native(jdk, src, paths, out):
    """The native test libraries and programs (lib*.c, exe*.c, .cpp) of the
    groups and test/lib, which upstream builds into the test image; built, failed."""
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir(parents=True)
    built, failed = [], []
    with open(out / 'build.log', 'w') as log:
        for s in sorted({f for p in [*paths, 'test/lib'] for f in files_under(src / p)
                         if re.fullmatch(r'(lib|exe).*\.(c|cpp)', f.name)}):
            cc = 'g++' if s.suffix == '.cpp' else 'gcc'
            if not shutil.which(cc):
                failed.append(f'{s.name} (no {cc})')
                continue
            flags = ['-O2', '-w', '-fPIC', '-pthread', f'-I{jdk}/include', f'-I{jdk}/include/linux',
                     f'-I{src}/test/lib/native', f'-I{s.parent}'] + (
                ['-shared', '-o', f'{out}/{s.stem}.so'] if s.name.startswith('lib') else
                [f'-L{jdk}/lib', f'-L{jdk}/lib/server', f'-Wl,-rpath,{jdk}/lib', f'-Wl,-rpath,{jdk}/lib/server',
                 '-ldl', '-o', f'{out}/{s.stem}'])
            ok = subprocess.run([cc, *flags, str(s)], stdout=log, stderr=subprocess.STDOUT).returncode == 0
            (built if ok else failed).append(os.path.relpath(s, src))
    (out / 'built.txt').write_text(''.join(b + '\n' for b in built))
    say(f'native test libraries: {len(built)} built, {len(failed)} failed (log: {out}/build.log)')
    return built, failed


def machine():
    def first(pattern, path, default='unknown'):
        try:
            return re.search(pattern, Path(path).read_text(), re.M)[1]
        except (OSError, TypeError):
            return default
    u, kib = os.uname(), first(r'^MemTotal:\s*(\d+)', '/proc/meminfo', None)
    os_name = first(r'^PRETTY_NAME="?([^"\n]*)', '/etc/os-release', u.sysname)
    cpu = first(r'^model name\s*:\s*(.*)$', '/proc/cpuinfo')
    return [f'- OS: {os_name}, kernel {u.release}, {u.machine}',
            f"- CPU: {cpu}, {len(os.sched_getaffinity(0))} CPUs online; memory "
            + ('%.1f GiB' % (int(kib) / 1048576) if kib else 'unknown')]


# -- the run --------------------------------------------------------------------------

class Conformance:
    def __init__(self, o, rows, cmdline):
        self.o, self.rows, self.cmdline, self.work = o, rows, cmdline, o.work
        self.configs = [c for c in CONFIGS if any(c in cs for _, _, cs in rows)]
        self.factories = [f for f in FACTORIES if any(f == rf for rf, _, _ in rows)]
        self.paths = list(dict.fromkeys(split_group(g)[0] for _, g, _ in rows))
        self.pls = [o.problem_list] + ([o.problem_list_virtual] if 'virtual' in self.factories else [])
        self.factory_jar = FACTORY_DIR / 'jtregTestThreadFactory.jar'
        self.runs = {}                                   # (factory, config, group) -> a completed run
        self.status, self.reason, self.jtr = {}, {}, {}   # (factory, config, test) -> ...
        self.confirm, self.off_from_rerun, self.rerun_commands = {}, set(), []
        self.not_run = self.stale = 0
        self.kept_stale = False                          # the last run execute() kept was stale
        self.deadline = None if o.stop_after is None else time.time() + 60 * int(o.stop_after)
        self.native_built, self.native_failed, self.own_files, self.self_set = [], [], [], []
        self.image = 'dry-run'
        self.path_names = {str(self.work): '<work>', str(o.jdk): '<jdk>', str(o.src): '<src>',
                           str(o.jtreg): '<jtreg>', str(TOP): '<repo>'}

    def excludes(self, factory):
        """jtreg's exclude lists: every run's (upstream's and ET-JDK's problem lists,
        ET-JDK's own tests), the virtual factory's (upstream's and ET-JDK's)."""
        jdk, o = self.o.src / 'test/jdk', self.o
        return ([f'-exclude:{jdk}/ProblemList.txt', f'-exclude:{o.problem_list}',
                 f'-exclude:{self.work}/et-jdk-own-tests.txt'],
                [f'-exclude:{jdk}/ProblemList-Virtual.txt', f'-exclude:{o.problem_list_virtual}']
                if factory == 'virtual' else [])

    def jtreg_cmd(self, factory, config, d, tests):
        o, (common, virtual) = self.o, self.excludes(factory)
        factory_opts = ['-testThreadFactory:Virtual', f'-testThreadFactoryPath:{self.factory_jar}'] if virtual else []
        return [f'{o.jtreg}/bin/jtreg', f'-dir:{o.src}', f'-jdk:{o.jdk}', f'-conc:{o.conc}', '-agentvm',
                f'-timeoutFactor:{o.timeout_factor}', '-a', '-k:!headful', '-retain:fail,error', *common,
                *factory_opts, *virtual, *([] if o.no_native else [f'-nativepath:{self.work}/native']),
                f'-w:{d}/JTwork', f'-r:{d}/JTreport', '-verbose:summary', *CONFIGS[config][1], *tests]

    def prepare(self):
        o = self.o
        for pl in self.pls:
            if not pl.exists():
                pl.parent.mkdir(parents=True, exist_ok=True)
                pl.write_text('# ET-JDK conformance problem list, in jtreg\'s exclude-file format: only tests that '
                              'fail with\n# the feature off too; the rules: test/conformance-problemlist.txt\n'
                              f'{PL_MARK}\n')
        self.pl_no_bug = {pl: check_problem_list(pl, o.src) for pl in self.pls}
        self.work.mkdir(parents=True, exist_ok=True)
        if not o.dry_run:
            if not (o.jdk / 'lib/modules').is_file():
                raise Error(f'{o.jdk} is not a JDK image (no lib/modules): pass --jdk build/<conf>/images/jdk')
            if 'virtual' in self.factories:
                self.factory_jar = build_factory_jar(o.jdk, o.src, self.factory_jar.parent)
            self.image = o.image_id or image_id(o.jdk)
        if not o.no_native and (o.dry_run or o.report_only):
            built = self.work / 'native/built.txt'
            self.native_built = built.read_text().split() if built.is_file() else []
        elif not o.no_native:
            self.native_built, self.native_failed = build_native(o.jdk, o.src, self.paths, self.work / 'native')
        # ET-JDK's own tests are not part of a conformance run ('make check' runs them)
        own = set(non_upstream_files(o.src, self.paths))
        names = {f.removeprefix('test/jdk/'): test_names(f.removeprefix('test/jdk/'), (o.src / f).read_text())
                 for f in sorted(own) if f.endswith('.java') and has_test(o.src / f)}
        self.own_files = list(names)
        (self.work / 'et-jdk-own-tests.txt').write_text(
            f'# generated by {PROG}: test files in the tree that are not in the pristine upstream commit\n'
            + ''.join(f'{n} 0000000 generic-all\n' for ns in names.values() for n in ns))
        if names:
            say(f"excluding {len(names)} test file(s) that are ET-JDK's own (not upstream): "
                f'{self.work}/et-jdk-own-tests.txt')
        # upstream tests that set the switches themselves, overriding the config
        self.self_set = sorted(os.path.relpath(f, o.src / 'test/jdk') for p in self.paths
                               for f in files_under(o.src / p) if f.suffix in ('.java', '.sh')
                               and os.path.relpath(f, o.src) not in own
                               and re.search(r'jdk\.poller(Mode|EdgeTriggered)', f.read_text(errors='replace')))
        if 'off' not in self.configs:
            say("config 'off' not run: tests that fail with the feature on are re-run with it off"
                + (' (not with --no-rerun: no BUG detection)' if o.no_rerun else ''))

    def execute(self, cmd, d):
        """Runs a jtreg command in d, or keeps a completed run of it (--resume);
        True if d then holds a completed run."""
        command = quote(cmd)
        key = command_key(command, self.path_names)
        state = resume_state(d, command, key, self.image) if self.o.resume else None
        recorded = self.o.record and self.o.record / d.relative_to(self.work)
        if (self.o.resume and recorded and state != 'keep'
                and resume_state(recorded, command, key, self.image) == 'keep'):
            say(f'  restoring the recorded run {recorded}')
            shutil.rmtree(d, ignore_errors=True)
            shutil.copytree(recorded, d)
            state = 'keep'
        self.kept_stale = state == 'stale'
        if state == 'keep' or (state == 'stale' and self.o.report_only):
            say(f'  kept the completed run in {d}' + (' (made with another image)' if state == 'stale' else ''))
            self.stale += state == 'stale'
            return True
        if state == 'stale':
            say(f'  the completed run in {d} was made with another image: running it again')
        if self.o.report_only:
            say('  not run (--report-only)')
            return False
        if self.deadline is not None and time.time() > self.deadline:
            say(f'  not run (--stop-after {self.o.stop_after})')
            return False
        shutil.rmtree(d, ignore_errors=True)
        d.mkdir(parents=True)
        (d / 'command.txt').write_text(command + '\n')
        (d / 'command-key.txt').write_text(key + '\n')
        (d / 'image.txt').write_text(self.image + '\n')
        start = time.time()
        with open(d / 'jtreg.log', 'w') as log:
            rc = subprocess.run(cmd, stdout=log, stderr=subprocess.STDOUT).returncode
        (d / 'rc').write_text(f'{128 - rc if rc < 0 else rc}\n')
        (d / 'seconds').write_text(f'{int(time.time() - start)}\n')
        (d / 'finished').write_text(f'{datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC\n')
        if recorded and rc >= 0:
            save_record(d, recorded)
        return True

    def run_groups(self):
        # group by group, every config of a group before the next group: an
        # interrupted run (or a --report-only report) compares whole groups
        for f, g, cs in self.rows:
            for c in cs:
                d = self.work / f / c / slug(g)
                say(f'running {g}, config {c} ({CONFIGS[c][0]}), {f} test threads')
                if not self.execute(self.jtreg_cmd(f, c, d, group_args(self.o.src, g)), d):
                    self.not_run += 1
                    continue
                results = read_summary(d / 'JTreport/text/summary.txt')
                for t, (st, why) in results.items():
                    self.status[(f, c, t)], self.reason[(f, c, t)], self.jtr[(f, c, t)] = st, why, jtr_path(d, t)
                run = self.runs[(f, c, g)] = SimpleNamespace(
                    rc=int((d / 'rc').read_text()), seconds=int((d / 'seconds').read_text()),
                    command=(d / 'command.txt').read_text().rstrip('\n'),
                    finished=(d / 'finished').read_text().strip() if (d / 'finished').is_file() else None,
                    stale=self.kept_stale,
                    counts=[sum(st == s for st, _ in results.values()) for s in ('Passed', 'Failed', 'Error')])
                log = (d / 'jtreg.log').read_text(errors='replace') if (d / 'jtreg.log').is_file() else ''
                line = re.search(r'^Test results:.*$', log, re.M)
                line = line[0] if line else f"no 'Test results' line (jtreg exit {run.rc}), see {d}/jtreg.log"
                say(f'  {line} in {fmt_time(run.seconds)}')

    def rerun(self):
        """Re-runs each failure with the feature on once, on and off (off then is
        the comparison when the plan had no 'off'); returns the classification."""
        cls = classify(self.status, self.configs, self.factories)
        failures = cls.bugs + cls.no_off
        if self.o.no_rerun or not failures:
            return cls
        if not self.o.report_only:
            say(f're-running {len(failures)} failure(s) with the feature on once, with it on and off')
        sets = rerun_sets(failures)
        for f, c in sorted(sets, key=lambda k: (self.factories.index(k[0]), list(CONFIGS).index(k[1]))):
            d = self.work / 'rerun' / f / c
            if not self.execute(self.jtreg_cmd(f, c, d, ['test/jdk/' + t for t in sets[(f, c)]]), d):
                continue
            self.rerun_commands.append((d / 'command.txt').read_text().rstrip('\n'))
            for t, (st, why) in read_summary(d / 'JTreport/text/summary.txt').items():
                self.confirm[(f, c, t)] = st
                if c == 'off' and (f, 'off', t) not in self.status:   # the re-run is the comparison
                    self.off_from_rerun.add((f, t))
                    self.status[(f, 'off', t)], self.reason[(f, 'off', t)], self.jtr[(f, 'off', t)] = \
                        st, why, jtr_path(d, t)
        return classify(self.status, self.configs, self.factories)

    def update_problem_lists(self, cls):
        lists = {'platform': self.o.problem_list, 'virtual': self.o.problem_list_virtual}
        existing = {f: p.read_text() for f, p in lists.items() if p.is_file()}
        stamp = f'{datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d}, {os.uname().release}'
        for f, text in problem_list_additions(cls.both, self.status, self.reason, existing, stamp).items():
            with open(lists[f], 'a') as out:
                out.write(text)
            say(f"added to {lists[f]}: {' '.join(entries(text))}")
        self.pl_no_bug = {pl: check_problem_list(pl, self.o.src) for pl in self.pls}

    def dry_run(self):
        print(f"plan: {len(self.rows)} group(s), configs: {' '.join(self.configs)}, "
              f"factories: {' '.join(self.factories)}")
        total = 0
        for f, g, cs in self.rows:
            with tempfile.TemporaryDirectory() as tmp:   # the run's selection, listed, not run
                out = capture([f'{self.o.jtreg}/bin/jtreg', f'-dir:{self.o.src}', f'-jdk:{self.o.jdk}', '-a',
                               '-k:!headful', *sum(self.excludes(f), []), f'-w:{tmp}/JTwork', f'-r:{tmp}/JTreport',
                               '-listtests', *group_args(self.o.src, g)], env={'JTREG_JAVA': f'{self.o.jdk}/bin/java'})
            n = re.search(r'^Tests found: *(\d+)', out, re.M)
            total += int(n[1]) * len(cs) if n else 0
            print(f"{f:<8} {g:<46} {n[1] if n else '?':>5} test ids x {len(cs)} config(s): {' '.join(cs)}")
        print(f"total: {total} test runs ('?': jtreg -listtests found none or failed)\n")
        print(f'jtreg commands (work directories under {self.work}):')
        for f, g, cs in self.rows:
            for c in cs:
                print(quote(self.jtreg_cmd(f, c, self.work / f / c / slug(g), group_args(self.o.src, g))))

    # -- report -------------------------------------------------------------------------

    def results_table(self, factory):
        lines = ['| group | ' + ' | '.join(self.configs) + ' |', '|---|' + '---|' * len(self.configs)]
        total = {c: [0, 0, 0, 0] for c in self.configs}
        for f, g, cs in (row for row in self.rows if row[0] == factory):
            cells = []
            for c in self.configs:
                run = self.runs.get((f, c, g))
                if c not in cs or not run:
                    cells.append('-' if c not in cs else 'not run')
                    continue
                total[c] = [a + b for a, b in zip(total[c], run.counts + [run.seconds])]
                cells.append(('%d / %d / %d' % tuple(run.counts) if sum(run.counts) else
                              f'no result, jtreg exit {run.rc}') + f' ({fmt_time(run.seconds)})'
                             + (' †' if getattr(run, 'stale', False) else ''))
            lines.append(f'| {group_title(g)} | ' + ' | '.join(cells) + ' |')
        return lines + ['| **total** | ' + ' | '.join('**%d / %d / %d**' % tuple(t[:3]) + f' ({fmt_time(t[3])})'
                                                      for t in total.values()) + ' |']

    def bug_verdict(self, f, c, t):
        if self.o.no_rerun:
            return 'not re-run'
        on, off = self.confirm.get((f, c, t), '?'), self.confirm.get((f, 'off', t), '?')
        if (f, t) in self.off_from_rerun:
            return f'off not run in the plan; re-run: Passed with off, {on} with {c}' + (
                ': flaky?' if on == 'Passed' else '')
        return 'passed when re-run: flaky?' if on == 'Passed' else f're-run: {on} with {c}, {off} with off'

    def report(self, cls, java_version, jtreg_version, now):
        o, virtual = self.o, 'virtual' in self.factories
        rel = lambda p: os.path.relpath(p, TOP) if str(p).startswith(f'{TOP}/') else str(p)  # noqa: E731
        if o.quick and not o.groups:
            out = ['# Conformance, quick subset: upstream jtreg groups with edge-triggered read pollers on', '',
                   f'Generated by `harness/conformance.py --quick` (`make conformance-quick`) on {now}: the subset to '
                   'run after every poller change. The full run is `make conformance` (doc/results/conformance.md).']
        else:
            out = ['# Conformance: upstream jtreg suites with edge-triggered read pollers off and on', '',
                   f'Generated by `harness/conformance.py` on {now}.', 'Full run: `make conformance` (which runs '
                   '`harness/conformance.py --jdk $(JDK_IMAGE) --jtreg $(JTREG_HOME) --src $(SRC) --out '
                   'doc/results/conformance.md`).']
        w = out.append
        w(f'\nThis run: `{self.cmdline}`')
        finished = sorted(r.finished for r in self.runs.values() if r.finished)
        if finished:
            total = sum(r.seconds for r in self.runs.values())
            w(f'\nThe {len(self.runs)} group/config runs below finished between {finished[0]} and {finished[-1]}; '
              f'jtreg wall time {total // 3600}:{total % 3600 // 60:02d} (h:mm) in all.'
              + (f' Each completed run is recorded in `{rel(o.record)}` (summary, exit status, time, the .jtr of '
                 'each failure), from which `--resume` restores it in a fresh clone.' if o.record else ''))
        if self.not_run:
            w(f'\n**Incomplete: {self.not_run} group/config run(s) did not run** ("not run" below); `--resume` runs '
              'them and keeps the others.')
        if self.stale:
            w(f'\n**{self.stale} run(s) below, marked †, were made with another image than `{o.jdk}` is now** '
              '(kept by `--report-only`; `--resume` runs them again).')
        out += ['\n## Machine\n', *machine(), f'- jtreg: {jtreg_version}']
        w(f'- jtreg options: -conc:{o.conc} -agentvm -timeoutFactor:{o.timeout_factor} -a -k:!headful, upstream '
          f'ProblemList.txt + `{rel(o.problem_list)}`' + (
              "; virtual factory: -testThreadFactory:Virtual (jar built from the tree's test/jtreg_test_thread_factory)"
              f', upstream ProblemList-Virtual.txt + `{rel(o.problem_list_virtual)}`' if virtual else '') + (
              '' if o.no_native else f'; native test libraries built by the script ({len(self.native_built)})'))
        w(f'\n`java -version`:\n\n```\n{java_version.rstrip()}\n```\n\n## Results\n')
        w('passed / failed / error (wall time m:ss) per group and config; `-`: not in the plan. Configs:')
        out += [f'- `{c}`: {CONFIGS[c][0]}, `{" ".join(CONFIGS[c][1])}`' for c in self.configs]
        w('\nThe switches go in with `-vmoption`, which jtreg applies to every JVM it starts for a test (agent VMs, '
          'othervm test VMs, compiling VMs) and passes on in `test.vm.opts`, so the JVMs that tests launch through '
          "jdk.test.lib's ProcessTools get them too. `off` sets `jdk.pollerEdgeTriggered=false` explicitly, so that "
          "a `-Djdk.pollerMode` in a test's `@run` line does not turn edge-triggered reads on. A test that sets "
          '`-Djdk.pollerMode` or `-Djdk.pollerEdgeTriggered` in its own `@run` line overrides the config (its options '
          'come later on the command line), so such test ids run the same way in every config with the feature on. '
          'Upstream tests in these groups that name these properties: '
          + (', '.join(f'`{s}`' for s in self.self_set) or 'none') + '.')
        if 'off' not in self.configs:
            w('\n`off` was not run; tests that failed with the feature on were re-run with it off'
              + (' (not in this run: --no-rerun)' if o.no_rerun else '') + '.')
        for factory in self.factories:
            out += [f'\n### {FACTORIES[factory]}\n', *self.results_table(factory)]
        w('\n## BUGs: pass with the feature off, fail with it on')
        for factory in self.factories:
            items = [f'- **BUG** `{t}` with `{c}`: {self.status[(f, c, t)]}. {self.reason[(f, c, t)]} '
                     f'({self.bug_verdict(f, c, t)})\n  `{self.jtr[(f, c, t)]}`'
                     for f, c, t in cls.bugs if f == factory]
            items += [f'- **not compared with off** `{t}` with `{c}`: {self.status[(f, c, t)]}. '
                      f'{self.reason[(f, c, t)]}\n  `{self.jtr[(f, c, t)]}`' for f, c, t in cls.no_off if f == factory]
            out += [f'\n### {FACTORIES[factory]}\n', *(items or ['None.'])]
        w('\n## Failing with the feature off too')
        for factory in self.factories:
            items = [f"- `{t}` (every config run{'; off: re-run' if (f, t) in self.off_from_rerun else ''}): off: "
                     f"{self.status[(f, 'off', t)]}. {self.reason[(f, 'off', t)]}" for f, t in cls.both if f == factory]
            items += [f'- `{t}` (off, not every ET config): '
                      + ' '.join(f"{c} {self.status.get((f, c, t), 'n/a')};" for c in self.configs)
                      + f" off reason: {self.reason[(f, 'off', t)]}" for f, t in cls.off_only if f == factory]
            out += [f'\n### {FACTORIES[factory]}\n', *(items or ['None.'])]
            if items:
                w('\nTests that fail in every config belong in ' + (
                    f'`{rel(o.problem_list_virtual)}` (or, if they fail with platform test threads too, '
                    f'`{rel(o.problem_list)}`)' if factory == 'virtual' else f'`{rel(o.problem_list)}`')
                  + ' with a reason and the upstream bug id.')
        w('\n## Problem lists\n\n- upstream `test/jdk/ProblemList.txt` (entries for this platform)')
        if virtual:
            w('- upstream `test/jdk/ProblemList-Virtual.txt` (virtual factory only)')
        for pl in self.pls:
            text = pl.read_text()
            n, no_bug = len(entries(text)), self.pl_no_bug[pl]
            w(f"- `{rel(pl)}`{' (virtual factory only)' if pl == o.problem_list_virtual else ''}: {n} entries"
              + (f', {no_bug} without an upstream bug id (0000000)' if no_bug else ''))
            if n:
                body = text.partition(PL_MARK + '\n')[2] or text
                out += ['', '  ```', *('  ' + x for x in body.splitlines() if x.strip()), '  ```']
        w("- ET-JDK's own tests in the groups (not in the pristine upstream commit of the tree; `make check` runs "
          f"them): {len(self.own_files)} files excluded" + (': ' + ' '.join(self.own_files) if self.own_files else ''))
        if not o.no_native:
            w(f"\nNative test libraries built (-nativepath): {' '.join(self.native_built) or 'none'}"
              + (f"; failed: {' '.join(self.native_failed)}" if self.native_failed else ''))
        w('\n## jtreg commands')
        for factory in self.factories:
            for c in self.configs:
                cmds = [r.command for (f, rc, _), r in self.runs.items() if (f, rc) == (factory, c)]
                if cmds:
                    w(f'\n### {c} ({CONFIGS[c][0]}), {factory} test threads\n\n```\n' + '\n'.join(cmds) + '\n```')
        if self.rerun_commands:
            w('\n### re-runs\n\n```\n' + '\n'.join(self.rerun_commands) + '\n```')
        return '\n'.join(out) + '\n'

    def main(self):
        self.prepare()
        if self.o.dry_run:
            self.dry_run()
            return 0
        self.run_groups()
        cls = self.rerun()
        if self.o.update_problem_list:
            self.update_problem_lists(cls)
        java = f'{self.o.jdk}/bin/java'
        report = self.report(cls, capture([java, '-version']), capture(
            [f'{self.o.jtreg}/bin/jtreg', '-version'], env={'JTREG_JAVA': java}).partition('\n')[0],
            f'{datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M UTC}')
        self.o.out.parent.mkdir(parents=True, exist_ok=True)
        self.o.out.write_text(report)
        for factory in self.factories:   # the console summary
            print(f'\n{FACTORIES[factory]} (passed / failed / error (m:ss)):', *self.results_table(factory), sep='\n')
        for f, c, t in cls.bugs:
            print(f'\nBUG ({f} test threads): {t} passes with off, {self.status[(f, c, t)]} with {c}: '
                  f'{self.reason[(f, c, t)]}\n     {self.jtr[(f, c, t)]}')
        for f, c, t in cls.no_off:
            print(f'fails with {c}, not compared with off ({f} test threads): {t}: {self.reason[(f, c, t)]}')
        for f, t in cls.both:
            print(f"fails with the feature off too ({f} test threads; problem-list candidate): {t}: "
                  f"{self.reason[(f, 'off', t)]}")
        print(f'report: {self.o.out}')
        return 2 if cls.bugs or cls.no_off else 0


def main(argv):
    try:
        o = parse_args(argv[1:])
        if o is None:
            print(USAGE)
            return 0
        rows = select_rows(o)
        check_setup(o, rows)
        return Conformance(o, rows, quote(argv)).main()
    except Error as e:
        print(f'{PROG}: error: {e}', file=sys.stderr)
        return 1


if __name__ == '__main__':
    sys.exit(main(sys.argv))
