#!/usr/bin/env python3
"""Unit tests of harness/conformance.py: python3 harness/test_conformance.py

A fake JDK, tree and jtreg (below) stand in for the real ones: the fake jtreg
lists a group's tests like jtreg (Foo.java, Foo.java#id), applies -exclude
files and writes JTreport/text/summary.txt and .jtr files with the outcomes a
test gives it per factory, config and invocation (Failed then Passed: flaky).
"""

import contextlib
import io
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path
from types import SimpleNamespace

sys.path.insert(0, str(Path(__file__).resolve().parent))
import conformance as cf  # noqa: E402

FAKE_JTREG = r'''#!/usr/bin/env python3
import json, os, re, sys
from pathlib import Path
args = sys.argv[1:]
with open(os.environ['FAKE_JTREG_LOG'], 'a') as log:
    log.write(' '.join(args) + '\n')
if '-version' in args:
    sys.exit(print('jtreg 8.3-fake\nsecond line'))
opt = lambda name: [a[len(name) + 2:] for a in args if a.startswith(f'-{name}:')]
src = Path(opt('dir')[0])
root = src / 'test/jdk'
excluded = {line.split()[0] for f in opt('exclude') for line in Path(f).read_text().splitlines()
            if line.strip() and not line.startswith('#')}
names = []
for t in (a for a in args if not a.startswith('-')):
    if '#' in t:
        names.append(t.removeprefix('test/jdk/'))
        continue
    p = src / t
    for f in [p] if p.is_file() else sorted(x for x in p.rglob('*.java')):
        ids = [(re.search(r'id=(\S+)', x) or [0, ''])[1] for x in f.read_text().splitlines() if '@test' in x]
        rel = f.relative_to(root).as_posix()
        names += [rel] if ids == [''] else [f'{rel}#{i or "id%d" % n}' for n, i in enumerate(ids)]
names = [n for n in names if n not in excluded]
if '-listtests' in args:
    sys.exit(print(f'Testsuite: {root}', *names, f'Tests found: {len(names)}', sep='\n'))
vm = ' '.join(opt('vmoption'))
config = ('off' if 'EdgeTriggered=false' in vm else 'mode4' if 'pollerMode=4' in vm
          else 'et-mode' + vm[-1] if 'pollerMode' in vm else 'et')
factory = 'virtual' if '-testThreadFactory:Virtual' in args else 'platform'
outcomes = json.loads(Path(os.environ['FAKE_JTREG_OUTCOMES']).read_text())
state_file = Path(os.environ['FAKE_JTREG_OUTCOMES'] + '.state')
state = json.loads(state_file.read_text()) if state_file.exists() else {}
r, w = Path(opt('r')[0]), Path(opt('w')[0])
(r / 'text').mkdir(parents=True, exist_ok=True)
summary, failed = [], 0
for n in names:
    key = f'{factory} {config} {n}'
    seq = outcomes.get(key, ['Passed'])
    st = seq[min(state.get(key, 0), len(seq) - 1)]
    state[key] = state.get(key, 0) + 1
    why = ('Execution successful' if st == 'Passed'
           else "Execution failed: `main' threw exception: java.lang.RuntimeException: boom")
    summary.append(f'{n}  {st}. {why}')
    if st != 'Passed':
        failed += 1
        name, _, tid = n.partition('#')
        jtr = w / (os.path.splitext(name)[0] + (f'_{tid}' if tid else '') + '.jtr')
        jtr.parent.mkdir(parents=True, exist_ok=True)
        jtr.write_text(f'execStatus={st}. {why}\njava.lang.RuntimeException: boom\n')
state_file.write_text(json.dumps(state))
(r / 'text/summary.txt').write_text(''.join(x + '\n' for x in summary))
print(f'Test results: passed: {len(names) - failed}; failed: {failed}')
sys.exit(2 if failed else 0)
'''

TEST = '/*\n * @test\n * @run main {0}\n */\nclass {0} {{}}\n'
TWO_TESTS = '/*\n * @test id=first\n */\n/*\n * @test\n */\nclass Two {}\n'


def write(path, text, mode=0o644):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    path.chmod(mode)


class Fixture(unittest.TestCase):
    """A fake JDK image, jtreg and source tree under a temporary directory."""

    def setUp(self):
        self.tmp = Path(tempfile.mkdtemp())
        self.addCleanup(shutil.rmtree, self.tmp)
        t = self.tmp
        write(t / 'jdk/bin/java', '#!/bin/sh\necho \'openjdk version "27-fake"\' >&2\n', 0o755)
        write(t / 'jdk/bin/javac', '#!/bin/sh\nwhile [ $# -gt 0 ]; do [ "$1" = -d ] && mkdir -p "$2"; shift; done\n',
              0o755)
        write(t / 'jdk/bin/jar', '#!/bin/sh\nwhile [ $# -gt 0 ]; do [ "$1" = --file ] && : > "$2"; shift; done\n',
              0o755)
        write(t / 'jdk/lib/modules', 'modules v1')
        write(t / 'jdk/lib/server/libjvm.so', 'jvm')
        write(t / 'jtreg/bin/jtreg', FAKE_JTREG, 0o755)
        s = t / 'tree/test'
        for p in ['TEST.ROOT', 'ProblemList.txt', 'ProblemList-Virtual.txt']:
            write(s / 'jdk' / p, '')
        write(s / 'jtreg_test_thread_factory/src/share/classes/Virtual.java', 'class Virtual {}')
        write(s / 'jdk/java/net/Socket/A.java', TEST.format('A'))
        write(s / 'jdk/java/net/Socket/Two.java', TWO_TESTS)
        write(s / 'jdk/java/net/http/Plain.java', TEST.format('Plain'))
        write(s / 'jdk/java/net/http/h2/H2.java', TEST.format('H2'))
        write(s / 'jdk/java/net/http/lib/Lib.java', 'class Lib {}')
        write(s / 'jdk/java/net/http/TEST.properties', '')
        write(self.tmp / 'outcomes.json', '{}')
        os.environ['FAKE_JTREG_LOG'] = str(t / 'jtreg.log')
        os.environ['FAKE_JTREG_OUTCOMES'] = str(t / 'outcomes.json')
        factory_dir = cf.FACTORY_DIR
        cf.FACTORY_DIR = t / 'factory'
        self.addCleanup(setattr, cf, 'FACTORY_DIR', factory_dir)

    def outcomes(self, **by_key):
        """Outcomes by 'factory config test': a list, one per invocation."""
        (self.tmp / 'outcomes.json').write_text(json.dumps({k.replace('__', ' '): v for k, v in by_key.items()}))

    def args(self, *extra):
        t = self.tmp
        return ['--jdk', str(t / 'jdk'), '--jtreg', str(t / 'jtreg'), '--src', str(t / 'tree'),
                '--work', str(t / 'work'), '--out', str(t / 'report.md'), '--no-native',
                '--problem-list', str(t / 'pl.txt'), '--problem-list-virtual', str(t / 'pl-virtual.txt'), *extra]

    def run_tool(self, *extra):
        """(exit status, stdout + stderr) of conformance.py with the fixture's options."""
        out = io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
            rc = cf.main(['harness/conformance.py', *self.args(*extra)])
        return rc, out.getvalue()

    def jtreg_calls(self):
        log = self.tmp / 'jtreg.log'
        return [x for x in log.read_text().splitlines() if '-version' not in x] if log.exists() else []

    def report(self):
        return (self.tmp / 'report.md').read_text()


def options(*argv):
    return cf.parse_args(['--jdk', 'j', '--jtreg', 't', '--src', 's', '--out', 'o', *argv])


class PlanTest(unittest.TestCase):
    def test_plans_parse(self):
        full = cf.parse_plan(cf.FULL_PLAN)
        self.assertEqual(len(full), 16)
        self.assertIn(('platform', 'test/jdk/java/net/httpclient!http2,http3', ['off', 'et-mode2']), full)
        self.assertTrue(all(set(cs) <= set(cf.CONFIGS) and f in cf.FACTORIES for f, _, cs in full))

    def test_quick_plan_default_configs(self):
        rows = cf.select_rows(options('--quick'))
        self.assertEqual(len(rows), 7)
        self.assertEqual(rows[0], ('platform', 'test/jdk/java/net/vthread', ['et-mode2', 'et-mode1', 'mode4']))
        self.assertEqual(rows[-1], ('platform', 'test/jdk/java/lang/Thread/virtual', ['mode4']))

    def test_configs_select_of_each_groups_configs(self):
        rows = cf.select_rows(options('--quick', '--configs', 'mode4 off'))
        self.assertTrue(all(cs == ['off', 'mode4'] for _, _, cs in rows))
        full = cf.select_rows(options('--configs', 'et-mode3'))
        self.assertEqual(len(full), 15)   # httpclient without http2/http3 has no et-mode3

    def test_factories_select_groups(self):
        rows = cf.select_rows(options('--quick', '--factories', 'virtual'))
        self.assertEqual([g for _, g, _ in rows], ['test/jdk/java/net/Socket',
                                                  'test/jdk/java/nio/channels/SocketChannel',
                                                  'test/jdk/java/nio/channels/DatagramChannel'])

    def test_nothing_selected(self):
        with self.assertRaisesRegex(cf.Error, 'select nothing of the plan'):
            cf.select_rows(options('--quick', '--configs', 'et-mode3'))

    def test_groups_instead_of_a_plan(self):
        rows = cf.select_rows(options('--groups', 'test/jdk/a test/jdk/b!x,y', '--factories', 'platform virtual'))
        self.assertEqual([(f, g) for f, g, _ in rows], [('platform', 'test/jdk/a'), ('virtual', 'test/jdk/a'),
                                                        ('platform', 'test/jdk/b!x,y'), ('virtual', 'test/jdk/b!x,y')])
        self.assertEqual(rows[0][2], cf.FULL_CONFIGS)
        self.assertEqual(cf.select_rows(options('--groups', 'test/jdk/a', '--configs', 'et off'))[0][2], ['et', 'off'])

    def test_group_names(self):
        g = 'test/jdk/java/net/httpclient!http2,http3'
        self.assertEqual(cf.group_title(g), '`java/net/httpclient` (without `http2/`, `http3/`)')
        self.assertEqual(cf.slug(g), 'java_net_httpclient-without-http2-http3')
        self.assertEqual(cf.slug('test/jdk/java/net/Socket/'), 'java_net_Socket')
        self.assertEqual(cf.group_title('test/jdk/java/net/Socket'), '`java/net/Socket`')

    def test_group_without_subdirectories(self):
        with tempfile.TemporaryDirectory() as d:
            src = Path(d)
            write(src / 'test/jdk/n/A.java', TEST.format('A'))
            write(src / 'test/jdk/n/Helper.java', 'class Helper {}')
            write(src / 'test/jdk/n/run.sh', '# @test\n')
            write(src / 'test/jdk/n/TEST.properties', '@test\n')
            write(src / 'test/jdk/n/sub/B.java', TEST.format('B'))
            write(src / 'test/jdk/n/lib/L.java', 'class L {}')
            write(src / 'test/jdk/n/keep/C.java', TEST.format('C'))
            self.assertEqual(cf.group_args(src, 'test/jdk/n!sub'),
                             ['test/jdk/n/A.java', 'test/jdk/n/keep', 'test/jdk/n/run.sh'])
            self.assertEqual(cf.group_args(src, 'test/jdk/n'), ['test/jdk/n'])

    def test_test_names(self):
        self.assertEqual(cf.test_names('a/A.java', TEST.format('A')), ['a/A.java'])
        self.assertEqual(cf.test_names('a/T.java', TWO_TESTS), ['a/T.java#first', 'a/T.java#id1'])
        # jtreg names a file's only test by the file, id or not (CarrierPollingTrim.java,
        # '@test id=mode4-p3', ran in the runs of 2026-11-27 while 'excluded' by its id)
        self.assertEqual(cf.test_names('a/I.java', '/* @test id=only */'), ['a/I.java'])


class OptionTest(unittest.TestCase):
    def error(self, *argv):
        with self.assertRaises(cf.Error) as e:
            cf.parse_args(argv)
        return str(e.exception)

    def test_errors(self):
        base = ['--jdk', 'j', '--jtreg', 't', '--src', 's', '--out', 'o']
        self.assertEqual(self.error(*base, '--frobnicate'), "unknown option '--frobnicate' (see --help)")
        self.assertEqual(self.error(*base, '--configs'), 'option --configs needs a value (see --help)')
        self.assertEqual(self.error(*base, '--groups', ''), 'option --groups needs a value (see --help)')
        self.assertIn("unknown config 'et-mode9'", self.error(*base, '--configs', 'off et-mode9'))
        self.assertIn("unknown factory 'carrier'", self.error(*base, '--factories', 'carrier'))
        self.assertIn('--jdk IMAGE is required', self.error('--jtreg', 't'))
        self.assertIn('--out FILE is required', self.error(*base[:6]))
        self.assertIn("--conc must be a positive integer, not '0'", self.error(*base, '--conc', '0'))
        self.assertIn('--timeout-factor must be a number', self.error(*base, '--timeout-factor', 'x'))
        self.assertIn("--stop-after must be a number of minutes, not '1h'", self.error(*base, '--stop-after', '1h'))
        self.assertIn('--image-id must be letters', self.error(*base, '--image-id', 'a b'))

    def test_help(self):
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            self.assertEqual(cf.main(['conformance.py', '--help']), 0)
        self.assertIn('platform test/jdk/java/lang/Thread/virtual           off mode4\n', out.getvalue())
        self.assertIn('Exit status: 0 no BUG, 2 BUG(s)', out.getvalue())

    def test_defaults(self):
        o = options('--quick', '--dry-run', '--report-only')
        self.assertTrue(o.resume)   # --report-only keeps what completed
        self.assertEqual(o.work, cf.TOP / 'build/conformance-quick')
        self.assertEqual((o.conc, o.timeout_factor), ('2', '4'))
        self.assertIsNone(cf.parse_args(['--help']))
        self.assertIsNotNone(cf.parse_args(['--jdk', 'j', '--jtreg', 't', '--src', 's', '--dry-run']))


class SetupTest(Fixture):
    def test_setup_errors(self):
        write(self.tmp / 'tree/test/lib/X.java', TEST.format('X'))
        write(self.tmp / 'tree/test/jdk/java/net/empty/Helper.java', 'class Helper {}')
        write(self.tmp / 'tree/test/jdk/java/net/empty/sub/T.java', TEST.format('T'))
        for group, error in [('test/jdk/java/net/Nope', "group 'test/jdk/java/net/Nope' not found in"),
                             ('test/lib', "group 'test/lib' is not under test/jdk"),
                             ('test/jdk/java/net/http!h3', 'no subdirectory h3 in'),
                             ('test/jdk/java/net/empty!sub', "group 'test/jdk/java/net/empty!sub' has no tests")]:
            rc, out = self.run_tool('--dry-run', '--groups', group)
            self.assertEqual(rc, 1)
            self.assertIn(error, out)
        self.assertEqual(self.run_tool('--dry-run', '--groups', 'test/jdk/java/net/http!h2,lib')[0], 0)

    def test_missing_inputs(self):
        t = self.tmp
        (t / 'jtreg/bin/jtreg').chmod(0o644)
        rc, out = self.run_tool('--dry-run', '--groups', 'test/jdk/java/net/Socket')
        self.assertEqual((rc, 'bin/jtreg missing or not executable' in out), (1, True))
        (t / 'jtreg/bin/jtreg').chmod(0o755)
        (t / 'tree/test/jdk/TEST.ROOT').unlink()
        self.assertIn('is not a JDK source tree', self.run_tool('--dry-run')[1])
        write(t / 'tree/test/jdk/TEST.ROOT', '')
        (t / 'tree/test/jdk/ProblemList-Virtual.txt').unlink()
        rc, out = self.run_tool('--dry-run', '--groups', 'test/jdk/java/net/Socket', '--factories', 'virtual')
        self.assertIn('the virtual factory needs upstream', out)
        (t / 'jdk/lib/modules').unlink()
        self.assertIn('is not a JDK image (no lib/modules)', self.run_tool('--groups', 'test/jdk/java/net/Socket')[1])
        (t / 'jdk/bin/java').unlink()
        rc, out = self.run_tool('--dry-run')
        self.assertEqual(rc, 1)
        self.assertIn('no JDK image at', out)
        self.assertIn('run: make images', out)

    def test_problem_list_errors(self):
        pl = self.tmp / 'pl.txt'
        for text, error in [
                ('# why\ntest/jdk/java/net/Socket/A.java 0000000 generic-all\n', 'must be relative to test/jdk'),
                ('java/net/Socket/A.java 8000001 generic-all\n', 'no comment above the entry'),
                (cf.PL_MARK + '\njava/net/Socket/A.java 8000001 generic-all\n', 'no comment above the entry'),
                ('# why\njava/net/Socket/A.java JDK-8000001 generic-all\n', "bug id 'JDK-8000001' is not numeric"),
                ('# why\njava/net/Socket/Gone.java 8000001 generic-all\n', 'no test java/net/Socket/Gone.java'),
                ('# why\njava/net/Socket/A.java 8000001\n', "expected '<test> <bug id(s)> <platforms>'")]:
            pl.write_text(text)
            with self.assertRaisesRegex(cf.Error, re.escape(error)):
                cf.check_problem_list(pl, self.tmp / 'tree')
        pl.write_text('# why\n\njava/net/Socket/Two.java#first 8000001,0000000 generic-all\n'
                      '# why too\njava/net/Socket/A.java 0000000 linux-all\n')
        self.assertEqual(cf.check_problem_list(pl, self.tmp / 'tree'), 2)

    def test_dry_run_lists_and_prints_commands(self):
        rc, out = self.run_tool('--dry-run', '--groups', 'test/jdk/java/net/Socket', '--configs', 'off et-mode1',
                                '--factories', 'virtual')
        self.assertEqual(rc, 0, out)
        self.assertRegex(out, r'virtual +test/jdk/java/net/Socket +3 test ids x 2 config\(s\): off et-mode1')
        self.assertIn('total: 6 test runs', out)
        self.assertRegex(out, r'-testThreadFactory:Virtual -testThreadFactoryPath:\S*jtregTestThreadFactory.jar '
                              r'-exclude:\S*ProblemList-Virtual.txt -exclude:\S*pl-virtual.txt .*'
                              r'-vmoption:-Djdk.pollerEdgeTriggered=true -vmoption:-Djdk.pollerMode=1 '
                              r'test/jdk/java/net/Socket\n')
        self.assertTrue(all('-listtests' in c for c in self.jtreg_calls()))
        self.assertFalse((self.tmp / 'report.md').exists())
        self.assertIn(cf.PL_MARK, (self.tmp / 'pl-virtual.txt').read_text())   # a new list gets the header


class ClassifyTest(unittest.TestCase):
    F = ['platform', 'virtual']

    def test_pass_everywhere(self):
        c = cf.classify({('platform', 'off', 'T'): 'Passed', ('platform', 'et-mode2', 'T'): 'Passed'},
                        ['off', 'et-mode2'], self.F)
        self.assertEqual((c.bugs, c.no_off, c.both, c.off_only), ([], [], [], []))

    def test_fails_with_feature_on_only_is_a_bug(self):
        c = cf.classify({('platform', 'off', 'T'): 'Passed', ('platform', 'et-mode2', 'T'): 'Failed',
                         ('platform', 'et-mode1', 'T'): 'Error', ('platform', 'mode4', 'T'): 'Passed'},
                        ['off', 'et-mode2', 'et-mode1', 'mode4'], self.F)
        self.assertEqual(c.bugs, [('platform', 'et-mode2', 'T'), ('platform', 'et-mode1', 'T')])
        self.assertEqual((c.no_off, c.both, c.off_only), ([], [], []))

    def test_fails_off_too(self):
        status = {('virtual', 'off', 'T'): 'Failed', ('virtual', 'et-mode2', 'T'): 'Error',
                  ('virtual', 'off', 'U'): 'Error', ('virtual', 'et-mode2', 'U'): 'Passed',
                  ('platform', 'off', 'V'): 'Failed'}   # only 'off' ran: every config run failed
        c = cf.classify(status, ['off', 'et-mode2'], self.F)
        self.assertEqual(c.bugs, [])
        self.assertEqual(c.both, [('platform', 'V'), ('virtual', 'T')])
        self.assertEqual(c.off_only, [('virtual', 'U')])

    def test_without_off_in_the_run(self):
        c = cf.classify({('platform', 'et-mode2', 'T'): 'Failed', ('platform', 'mode4', 'T'): 'Passed',
                         ('platform', 'et-mode2', 'U'): 'Passed'}, ['et-mode2', 'mode4'], self.F)
        self.assertEqual((c.bugs, c.no_off, c.both), ([], [('platform', 'et-mode2', 'T')], []))

    def test_not_run_in_a_config(self):
        # no result with et-mode1 (not run, or excluded there): only the configs with a result count
        c = cf.classify({('platform', 'off', 'T'): 'Failed', ('platform', 'et-mode2', 'T'): 'Failed'},
                        ['off', 'et-mode2', 'et-mode1'], self.F)
        self.assertEqual(c.both, [('platform', 'T')])

    def test_rerun_sets(self):
        self.assertEqual(cf.rerun_sets([('platform', 'et-mode2', 'B'), ('platform', 'et-mode1', 'A'),
                                        ('virtual', 'mode4', 'A')]),
                         {('platform', 'et-mode2'): ['B'], ('platform', 'off'): ['A', 'B'],
                          ('platform', 'et-mode1'): ['A'], ('virtual', 'mode4'): ['A'], ('virtual', 'off'): ['A']})


class ResultsTest(unittest.TestCase):
    def test_read_summary(self):
        with tempfile.TemporaryDirectory() as d:
            p = Path(d, 'summary.txt')
            p.write_text('java/a/A.java#id0          Passed. Execution successful\n'
                         'java/a/B.java  Failed. Execution failed: `main\' threw exception: x.Y: a. b\n'
                         'java/a/C.java  Error. Agent error: java.lang.Exception\n'
                         'java/a/D.java  Not run. whatever\n')
            self.assertEqual(cf.read_summary(p), {
                'java/a/A.java#id0': ('Passed', 'Execution successful'),
                'java/a/B.java': ('Failed', "Execution failed: `main' threw exception: x.Y: a. b"),
                'java/a/C.java': ('Error', 'Agent error: java.lang.Exception')})
            self.assertEqual(cf.read_summary(Path(d, 'missing')), {})

    def test_jtr_path(self):
        self.assertEqual(cf.jtr_path(Path('/w'), 'java/a/A.java#id0'), Path('/w/JTwork/java/a/A_id0.jtr'))
        self.assertEqual(cf.jtr_path(Path('/w'), 'java/a/B.sh'), Path('/w/JTwork/java/a/B.jtr'))

    def test_quote_is_the_bash_drivers(self):
        self.assertEqual(cf.quote(['jtreg', '-k:!headful', 'a#b', "it's", '-exclude:/x/y.txt']),
                         "jtreg '-k:!headful' a#b 'it'\\''s' -exclude:/x/y.txt")

    def test_resume_state(self):
        with tempfile.TemporaryDirectory() as d:
            d = Path(d)
            self.assertIsNone(cf.resume_state(d, 'cmd', 'key', 'img'))       # never ran
            (d / 'command.txt').write_text('cmd\n')
            (d / 'image.txt').write_text('img\n')
            self.assertIsNone(cf.resume_state(d, 'cmd', 'key', 'img'))       # did not complete: no rc
            (d / 'rc').write_text('3\n')
            self.assertEqual(cf.resume_state(d, 'cmd', 'key', 'img'), 'keep')  # failures complete a run
            self.assertEqual(cf.resume_state(d, 'cmd', 'key', 'other'), 'stale')
            self.assertIsNone(cf.resume_state(d, 'cmd -conc:4', 'key', 'img'))  # another command
            (d / 'command-key.txt').write_text('key\n')                   # a run that has a key: the key counts
            self.assertEqual(cf.resume_state(d, 'cmd elsewhere', 'key', 'img'), 'keep')
            self.assertIsNone(cf.resume_state(d, 'cmd', 'key -conc:4', 'img'))
            (d / 'rc').write_text('137\n')
            self.assertIsNone(cf.resume_state(d, 'cmd', 'key', 'img'))       # killed

    def test_command_key(self):
        paths = {'/r': '<repo>', '/r/build/w': '<work>', '/c/jtreg': '<jtreg>'}
        self.assertEqual(cf.command_key('/c/jtreg/bin/jtreg -w:/r/build/w/x -exclude:/r/test/pl.txt', paths),
                         '<jtreg>/bin/jtreg -w:<work>/x -exclude:<repo>/test/pl.txt')

    def test_image_id(self):
        with tempfile.TemporaryDirectory() as d:
            jdk = Path(d)
            write(jdk / 'bin/java', '#!/bin/sh\necho version >&2\n', 0o755)
            write(jdk / 'lib/modules', 'm')
            write(jdk / 'lib/server/libjvm.so', 'j')
            write(jdk / 'lib/deep/er/libx.so', 'not hashed: depth 3')
            first = cf.image_id(jdk)
            self.assertRegex(first, '^[0-9a-f]{16}$')
            (jdk / 'lib/deep/er/libx.so').write_text('changed')
            self.assertEqual(cf.image_id(jdk), first)
            (jdk / 'lib/server/libjvm.so').write_text('changed')
            self.assertNotEqual(cf.image_id(jdk), first)

    def test_problem_list_additions(self):
        status = {('platform', 'off', 'a/A.java'): 'Failed', ('virtual', 'off', 'a/A.java'): 'Failed',
                  ('virtual', 'off', 'b/B.java#id1'): 'Error', ('platform', 'off', 'c/C.java'): 'Failed'}
        reason = {k: 'Execution failed: boom ' * 20 for k in status}
        add = cf.problem_list_additions(
            [('platform', 'a/A.java'), ('platform', 'c/C.java'), ('virtual', 'a/A.java'), ('virtual', 'b/B.java#id1')],
            status, reason, {'platform': '# old\nc/C.java 8000001 generic-all\n'}, '2026-11-26, 6.1')
        self.assertEqual(set(add), {'platform', 'virtual'})
        self.assertEqual(add['platform'],
                         '# fails with the feature off and on, platform test threads (2026-11-26, 6.1): Failed. '
                         + ('Execution failed: boom ' * 20)[:200] + '\n'
                         '# TODO: the upstream bug id (https://bugs.openjdk.org), then replace 0000000\n'
                         'a/A.java 0000000 generic-all\n')
        self.assertEqual(cf.entries(add['virtual']), ['b/B.java#id1'])   # a/A.java: the platform entry covers it


class ReportTest(unittest.TestCase):
    def test_results_table(self):
        o = options('--groups', 'x')
        rows = [('platform', 'test/jdk/java/a', ['off', 'et-mode2']), ('platform', 'test/jdk/java/b!c', ['off']),
                ('platform', 'test/jdk/java/d', ['off', 'et-mode2']), ('virtual', 'test/jdk/java/a', ['et-mode2'])]
        c = cf.Conformance(o, rows, 'cmd')
        run = lambda rc, s, *counts: SimpleNamespace(rc=rc, seconds=s, counts=list(counts), command='')  # noqa: E731
        c.runs = {('platform', 'off', 'test/jdk/java/a'): run(0, 61, 10, 1, 0),
                  ('platform', 'et-mode2', 'test/jdk/java/a'): run(2, 59, 9, 1, 1),
                  ('platform', 'off', 'test/jdk/java/b!c'): run(1, 5, 0, 0, 0),
                  ('platform', 'off', 'test/jdk/java/d'): run(0, 10, 3, 0, 0),
                  ('virtual', 'et-mode2', 'test/jdk/java/a'): run(0, 1, 7, 0, 0)}
        self.assertEqual(c.results_table('platform'), [
            '| group | off | et-mode2 |',
            '|---|---|---|',
            '| `java/a` | 10 / 1 / 0 (1:01) | 9 / 1 / 1 (0:59) |',
            '| `java/b` (without `c/`) | no result, jtreg exit 1 (0:05) | - |',
            '| `java/d` | 3 / 0 / 0 (0:10) | not run |',
            '| **total** | **13 / 1 / 0** (1:16) | **9 / 1 / 1** (0:59) |'])
        self.assertEqual(c.results_table('virtual')[2:], [
            '| `java/a` | - | 7 / 0 / 0 (0:01) |', '| **total** | **0 / 0 / 0** (0:00) | **7 / 0 / 0** (0:01) |'])


class EndToEndTest(Fixture):
    """Whole runs with the fake jtreg: run, re-run, classification, report, exit status."""
    SOCKET = ['--groups', 'test/jdk/java/net/Socket']

    def test_all_pass(self):
        rc, out = self.run_tool(*self.SOCKET, '--configs', 'off et-mode2')
        self.assertEqual(rc, 0, out)
        r = self.report()
        self.assertIn('| `java/net/Socket` | 3 / 0 / 0 (0:0', r)
        self.assertIn('## BUGs: pass with the feature off, fail with it on\n\n'
                      "### platform test threads (jtreg's default)\n\nNone.", r)
        self.assertIn('openjdk version "27-fake"', r)
        self.assertIn('- jtreg: jtreg 8.3-fake', r)
        self.assertRegex(r, r'### et-mode2 \(ET on, pollerMode 2\), platform test threads\n\n```\n\S*/bin/jtreg -dir:')
        self.assertIn('This run: `harness/conformance.py --jdk', r)
        self.assertEqual(len(self.jtreg_calls()), 2)

    def test_reproducible_bug(self):
        self.outcomes(**{'platform et-mode2 java/net/Socket/A.java': ['Failed']})
        rc, out = self.run_tool(*self.SOCKET, '--configs', 'off et-mode2')
        self.assertEqual(rc, 2, out)
        self.assertIn('BUG (platform test threads): java/net/Socket/A.java passes with off, Failed with et-mode2', out)
        r = self.report()
        self.assertIn('- **BUG** `java/net/Socket/A.java` with `et-mode2`: Failed. Execution failed: `main\' threw '
                      'exception: java.lang.RuntimeException: boom (re-run: Failed with et-mode2, Passed with off)', r)
        self.assertIn('platform/et-mode2/java_net_Socket/JTwork/java/net/Socket/A.jtr`', r)
        self.assertIn('### re-runs', r)
        reruns = [c for c in self.jtreg_calls() if '/rerun/' in c]
        self.assertEqual(len(reruns), 2)
        self.assertTrue(all(c.endswith(' test/jdk/java/net/Socket/A.java') for c in reruns))

    def test_flaky_bug(self):
        self.outcomes(**{'platform et-mode2 java/net/Socket/Two.java#id1': ['Error', 'Passed']})
        rc, out = self.run_tool(*self.SOCKET, '--configs', 'off et-mode2')
        self.assertEqual(rc, 2, out)   # a flaky failure with the feature on is still reported
        self.assertIn('with `et-mode2`: Error. Execution failed: `main\' threw exception: java.lang.RuntimeException: '
                      'boom (passed when re-run: flaky?)', self.report())

    def test_without_off_rerun_with_off_decides(self):
        self.outcomes(**{'platform et-mode2 java/net/Socket/A.java': ['Failed'],
                         'platform off java/net/Socket/A.java': ['Passed'],
                         'platform et-mode2 java/net/Socket/Two.java#first': ['Failed'],
                         'platform et-mode1 java/net/Socket/Two.java#first': ['Failed'],
                         'platform off java/net/Socket/Two.java#first': ['Failed']})
        rc, out = self.run_tool(*self.SOCKET, '--configs', 'et-mode2 et-mode1', '--update-problem-list')
        self.assertEqual(rc, 2, out)
        r = self.report()
        self.assertIn('`off` was not run; tests that failed with the feature on were re-run with it off.', r)
        self.assertIn('(off not run in the plan; re-run: Passed with off, Failed with et-mode2)', r)
        self.assertIn('- `java/net/Socket/Two.java#first` (every config run; off: re-run): off: Failed.', r)
        pl = (self.tmp / 'pl.txt').read_text()
        self.assertTrue(pl.endswith('java/net/Socket/Two.java#first 0000000 generic-all\n'), pl)
        self.assertIn('pl.txt`: 1 entries, 1 without an upstream bug id (0000000)', r)
        # again, the problem list now excludes the test
        rc, out = self.run_tool(*self.SOCKET, '--configs', 'et-mode2 et-mode1', '--update-problem-list')
        self.assertNotIn('Two.java#first', (self.tmp / 'work/platform/et-mode2/java_net_Socket/'
                                            'JTreport/text/summary.txt').read_text())

    def test_off_fails_too_no_bug(self):
        self.outcomes(**{'virtual et-mode2 java/net/Socket/A.java': ['Failed'],
                         'virtual off java/net/Socket/A.java': ['Failed']})
        rc, out = self.run_tool(*self.SOCKET, '--configs', 'et-mode2', '--factories', 'virtual')
        self.assertEqual(rc, 0, out)
        self.assertIn('fails with the feature off too (virtual test threads; problem-list candidate)', out)
        self.assertIn('belong in `' + str(self.tmp / 'pl-virtual.txt') + '`', self.report())
        self.assertTrue(any('-testThreadFactoryPath:' + str(self.tmp / 'factory/jtregTestThreadFactory.jar') in c
                            for c in self.jtreg_calls()))

    def test_no_rerun_without_off(self):
        self.outcomes(**{'platform mode4 java/net/Socket/A.java': ['Failed']})
        rc, out = self.run_tool(*self.SOCKET, '--configs', 'mode4', '--no-rerun')
        self.assertEqual(rc, 2, out)
        self.assertIn('- **not compared with off** `java/net/Socket/A.java` with `mode4`: Failed.', self.report())
        self.assertFalse(any('/rerun/' in c for c in self.jtreg_calls()))

    def test_resume_and_report_only(self):
        args = [*self.SOCKET, '--configs', 'off et-mode2', '--resume']
        self.assertEqual(self.run_tool(*args)[0], 0)
        rc, out = self.run_tool(*args)
        self.assertEqual((rc, len(self.jtreg_calls())), (0, 2))            # both kept
        self.assertEqual(out.count('kept the completed run'), 2)
        (self.tmp / 'work/platform/et-mode2/java_net_Socket/rc').write_text('137\n')
        self.run_tool(*args)
        self.assertEqual(len(self.jtreg_calls()), 3)                       # the killed one ran again
        self.run_tool(*args, '--conc', '1')
        self.assertEqual(len(self.jtreg_calls()), 5)                       # another command: both again
        (self.tmp / 'jdk/lib/modules').write_text('modules v2')          # another image
        rc, out = self.run_tool(*args, '--conc', '1', '--report-only')
        self.assertEqual(len(self.jtreg_calls()), 5)
        self.assertIn('**2 run(s) below, marked †, were made with another image than', self.report())
        self.assertRegex(self.report(), r'\| `java/net/Socket` \| \d+ / 0 / 0 \([0-9:]+\) † \| \d+ / 0 / 0 \([0-9:]+\) † \|')
        rc, out = self.run_tool(*args, '--report-only')                    # not this command: not run
        self.assertIn('**Incomplete: 2 group/config run(s) did not run**', self.report())
        self.assertIn('| `java/net/Socket` | not run | not run |', self.report())
        self.run_tool(*args, '--conc', '1')
        self.assertEqual(len(self.jtreg_calls()), 7)                       # --resume: the image changed

    def test_record_spans_fresh_clones(self):
        self.outcomes(**{'platform et-mode2 java/net/Socket/A.java': ['Failed']})
        record = self.tmp / 'record'
        args = [*self.SOCKET, '--configs', 'off et-mode2', '--resume', '--record', str(record),
                '--image-id', 'series:1']
        self.assertEqual(self.run_tool(*args)[0], 2)
        self.assertEqual(len(self.jtreg_calls()), 4)                       # 2 runs, then the failure re-run on, off
        run = record / 'platform/et-mode2/java_net_Socket'
        self.assertEqual((run / 'rc').read_text(), '2\n')
        self.assertIn('java/net/Socket/A.java  Failed.', (run / 'JTreport/text/summary.txt').read_text())
        self.assertEqual((run / 'jtreg.log').read_text(), 'Test results: passed: 2; failed: 1\n')
        self.assertTrue((run / 'JTwork/java/net/Socket/A.jtr').is_file())  # a failure's .jtr
        self.assertFalse((record / 'platform/off/java_net_Socket/JTwork').exists())
        self.assertTrue((record / 'rerun/platform/off/rc').is_file())
        shutil.rmtree(self.tmp / 'work')                                   # a fresh clone, the image rebuilt
        (self.tmp / 'jdk/lib/modules').write_text('modules rebuilt')
        rc, out = self.run_tool(*args)
        self.assertEqual((rc, len(self.jtreg_calls())), (2, 4))            # every run restored from the record
        self.assertEqual(out.count('restoring the recorded run'), 4)
        self.assertIn('BUG', self.report())
        self.assertIn('A.jtr`', self.report())
        self.assertRegex(self.report(), r'The 2 group/config runs below finished between 20\d\d-.* UTC and ')
        t = self.tmp                                                       # a clone in another directory
        for x in ('jdk', 'jtreg', 'tree'):
            shutil.copytree(t / x, t / 'elsewhere' / x, symlinks=True)
        rc, out = self.run_tool(*args, '--work', str(t / 'elsewhere/work'), '--jdk', str(t / 'elsewhere/jdk'),
                                '--jtreg', str(t / 'elsewhere/jtreg'), '--src', str(t / 'elsewhere/tree'))
        self.assertEqual((rc, len(self.jtreg_calls())), (2, 4))            # restored, not run again
        self.assertEqual(out.count('restoring the recorded run'), 4)
        shutil.rmtree(self.tmp / 'work')
        self.run_tool(*args[:-1], 'series:2')                              # another series: run again
        self.assertEqual(len(self.jtreg_calls()), 8)
        shutil.rmtree(self.tmp / 'work')
        self.run_tool(*args[:-4], *args[-2:])                              # without --record: nothing restored
        self.assertEqual(len(self.jtreg_calls()), 12)

    def test_record_shortens_a_large_jtr(self):
        d = self.tmp / 'run'
        write(d / 'rc', '1\n')
        write(d / 'JTreport/text/summary.txt', 'a/Big.java  Failed. boom\nb/Ok.java  Passed. fine\n')
        write(d / 'JTwork/a/Big.jtr', 'h' * cf.JTR_KEEP + 't' * cf.JTR_KEEP)
        write(d / 'JTwork/b/Ok.jtr', 'ok')
        cf.save_record(d, self.tmp / 'rec')
        big = (self.tmp / 'rec/JTwork/a/Big.jtr').read_text()
        self.assertTrue(big.startswith('h' * (cf.JTR_KEEP // 2) + '\n[... ') and big.endswith('t' * (cf.JTR_KEEP // 2)))
        self.assertIn(f'[... {cf.JTR_KEEP} bytes left out by', big)
        self.assertFalse((self.tmp / 'rec/JTwork/b').exists())            # passed: no .jtr
        self.assertEqual((self.tmp / 'rec/jtreg.log').read_text(), '')     # no jtreg.log in d

    def test_stop_after(self):
        rc, out = self.run_tool(*self.SOCKET, '--configs', 'off et-mode2', '--stop-after', '0')
        self.assertEqual(len(self.jtreg_calls()), 0)
        self.assertEqual(out.count('not run (--stop-after 0)'), 2)
        self.assertIn('**Incomplete: 2 group/config run(s) did not run**', self.report())

    def test_own_tests_excluded(self):
        if not shutil.which('git'):
            self.skipTest('no git')
        tree = self.tmp / 'tree'
        git = lambda *a: subprocess.run(['git', '-C', str(tree), *a], check=True, capture_output=True)  # noqa: E731
        git('init', '-q')
        git('add', '-A')
        git('-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-qm', 'upstream')
        write(tree / 'test/jdk/java/net/Socket/Own.java', TWO_TESTS)
        write(tree / 'test/jdk/java/net/Socket/Uses.java', TEST.format('Uses') + '// -Djdk.pollerMode=1\n')
        git('add', '-A')
        git('-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-qm', 'ours')
        rc, out = self.run_tool(*self.SOCKET, '--configs', 'off')
        self.assertEqual(rc, 0, out)
        self.assertEqual((self.tmp / 'work/et-jdk-own-tests.txt').read_text().splitlines()[1:],
                         ['java/net/Socket/Own.java#first 0000000 generic-all',
                          'java/net/Socket/Own.java#id1 0000000 generic-all',
                          'java/net/Socket/Uses.java 0000000 generic-all'])
        self.assertIn('2 files excluded: java/net/Socket/Own.java java/net/Socket/Uses.java', self.report())
        self.assertIn('| `java/net/Socket` | 3 / 0 / 0', self.report())
        self.assertIn('name these properties: none.', self.report())   # our own test is not upstream's

    def test_self_set_and_native(self):
        write(self.tmp / 'tree/test/jdk/java/net/Socket/Sets.java', TEST.format('S') + '// -Djdk.pollerEdgeTriggered\n')
        rc, out = self.run_tool(*self.SOCKET, '--configs', 'off')
        self.assertIn('name these properties: `java/net/Socket/Sets.java`.', self.report())
        if not shutil.which('gcc'):
            self.skipTest('no gcc')
        write(self.tmp / 'tree/test/lib/native/libOk.c', 'int ok(void) { return 1; }\n')
        write(self.tmp / 'tree/test/jdk/java/net/Socket/libBad.c', 'this is not C\n')
        args = [a for a in self.args(*self.SOCKET, '--configs', 'off') if a != '--no-native']
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            self.assertEqual(cf.main(['conformance.py', *args]), 0)
        self.assertTrue((self.tmp / 'work/native/libOk.so').is_file())
        self.assertIn('Native test libraries built (-nativepath): test/lib/native/libOk.c; failed: '
                      'test/jdk/java/net/Socket/libBad.c', self.report())
        self.assertTrue(all('-nativepath:' + str(self.tmp / 'work/native') in c for c in self.jtreg_calls()[-1:]))


if __name__ == '__main__':
    unittest.main()
