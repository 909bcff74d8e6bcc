#!/usr/bin/env python3
"""Split async-profiler CPU samples of a Latency run by the part of the run that spent them.

Input: collapsed stacks (async-profiler `event=cpu,interval=...,collapsed,file=NAME-%p.collapsed`,
one file per run, NAME the variant). Each stack is given to the first part whose
frame it holds, in the order of the rules below:

  echo        the Selector echo server thread (PingPong.echo, which main's other
              lambda calls: so it goes first)
  client      the round-trip client (Latency.lambda$main...)
  busy        the CPU-bound busy tasks (Latency.lambda$startBusyTasks...)
  poller      sun.nio.ch.Poller and its subclasses outside the client (sub-pollers,
              the master poller, carriers polling between tasks or blocked in epoll_wait)
  scheduler   ForkJoinPool, VirtualThread and Continuation frames outside the above
  other       the rest (JIT compilers, GC, VM threads, start-up)

The client part is split further by its leaf: kernel (a frame ending in _[k]) or not.
Output: per variant, the median over its runs of microseconds per round trip in each
part (samples x interval / round trips, where round trips = timed + warmup), and
the client's and scheduler's hottest leaf frames summed over the variant's runs.

  cpu-by-part.py --interval-us 100 --round-trips 250000 FILE...

With --by-call the files may come from any program (WaitingClient, PingPong): each
sample is given to the innermost JDK call on its stack (CALLS below), and the
output is each call's share of the run's samples, in percent, outside the JIT
compiler threads (their share is listed apart): where a saturated client's CPU
goes, whatever its request count.

  cpu-by-part.py --by-call FILE...
"""
import argparse
import collections
import os
import re
import statistics
import sys

POLLER = re.compile(r'sun/nio/ch/\w*Poller')
SCHEDULER = re.compile(r'java/util/concurrent/ForkJoin|java/lang/VirtualThread|jdk/internal/vm/Continuation')

PARTS = [
    ('echo', re.compile(r'PingPong\.echo')),
    ('client', re.compile(r'Latency\.lambda\$main')),
    ('busy', re.compile(r'Latency\.lambda\$startBusyTasks')),
    ('poller', POLLER),
    ('scheduler', SCHEDULER),
]
PART_NAMES = [p for p, _ in PARTS] + ['other']

# --by-call: the innermost Java frame that one of these matches decides (within
# a frame, the first rule wins)
CALLS = [
    ('write syscall', re.compile(r'SocketDispatcher\.write0|FileDispatcherImpl\.write0|IOUtil\.write')),
    ('read syscall', re.compile(r'SocketDispatcher\.read0|FileDispatcherImpl\.read0|IOUtil\.read')),
    ('epoll_ctl', re.compile(r'EPoll\.ctl')),
    ('epoll_wait', re.compile(r'EPoll\.wait')),
    ('poller', POLLER),
    ('scheduler', SCHEDULER),
    ('socket and lock code', re.compile(r'^(sun/nio/ch|java/net|java/nio|java/io)/'
                                         r'|^java/util/concurrent/locks/(?!LockSupport)')),
]
CALL_NAMES = [c for c, _ in CALLS] + ['continuation (VM)', 'other']
JIT = re.compile(r'CompileBroker::|C2Compiler::|Compilation::')
CONTINUATION_VM = re.compile(r'thaw|freeze|cont_returnBarrier')


def call_of(frames):
    """The --by-call bucket of a stack (root first); 'jit' for the compiler threads."""
    if any(JIT.search(f) for f in frames):
        return 'jit'
    for f in reversed(frames):
        if '/' in f and not f.endswith('_[k]'):
            for name, rx in CALLS:
                if rx.search(f):
                    return name
    if any(CONTINUATION_VM.search(f) for f in frames):
        return 'continuation (VM)'
    return 'other'


def by_call(files):
    """Print each variant's share of samples per call, median over its runs."""
    runs = collections.defaultdict(list)
    for path in files:
        c = collections.Counter()
        for frames, count in read_collapsed(path):
            c[call_of(frames)] += count
        total = sum(c.values())
        rest = total - c['jit']
        if not rest:
            raise Error(f'{path}: no samples outside the JIT compiler threads')
        shares = {n: 100 * c[n] / rest for n in CALL_NAMES}
        shares['jit'] = 100 * c['jit'] / total
        runs[variant_of(path)].append(shares)
    cols = CALL_NAMES
    print('Share of the samples outside the JIT compiler threads (%), median over runs;')
    print('the JIT column is the compiler threads\' share of all samples')
    print()
    print('| variant | runs | ' + ' | '.join(cols) + ' | JIT |')
    print('|---|---:|' + '---:|' * (len(cols) + 1))
    for v, rs in runs.items():
        cells = [f'{statistics.median(r[c] for r in rs):.1f}' for c in cols + ['jit']]
        print(f'| {v} | {len(rs)} | ' + ' | '.join(cells) + ' |')


class Error(Exception):
    pass


def part_of(frames):
    """The part a stack (root first) belongs to: the first rule any of its frames matches."""
    for name, rx in PARTS:
        if any(rx.search(f) for f in frames):
            return name
    return 'other'


def read_collapsed(path):
    """Yield (frames, samples) for each line of a collapsed-stacks file."""
    with open(path) as f:
        for n, line in enumerate(f, 1):
            line = line.rstrip('\n')
            if not line:
                continue
            stack, _, count = line.rpartition(' ')
            if not stack or not count.isdigit():
                raise Error(f'{path}:{n}: not a collapsed stack ("frames count"): {line[:80]}')
            yield stack.split(';'), int(count)


def variant_of(path):
    base = os.path.basename(path)
    m = re.match(r'([A-Za-z][A-Za-z0-9_]*)-', base)
    if not m:
        raise Error(f'{path}: file name must start with the variant name and a dash (NAME-%p.collapsed)')
    return m.group(1)


def split(path):
    """Samples per part, the client's samples split kernel / user, and leaf counters."""
    parts = collections.Counter()
    leaves = {'client': collections.Counter(), 'scheduler': collections.Counter(), 'poller': collections.Counter()}
    for frames, count in read_collapsed(path):
        p = part_of(frames)
        parts[p] += count
        if p == 'client':
            parts['client-kernel' if frames[-1].endswith('_[k]') else 'client-user'] += count
        if p in leaves:
            leaves[p][frames[-1]] += count
    return parts, leaves


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--by-call', action='store_true', help='share of samples per innermost JDK call, any program')
    ap.add_argument('--interval-us', type=float, help='the profiler interval in microseconds')
    ap.add_argument('--round-trips', type=int, help='round trips per run, warmup included')
    ap.add_argument('--top', type=int, default=8, help='leaf frames to list per part [8]')
    ap.add_argument('files', nargs='+')
    o = ap.parse_args(argv)
    if o.by_call:
        by_call(o.files)
        return 0
    if o.interval_us is None or o.round_trips is None:
        raise Error('--interval-us and --round-trips are needed (or --by-call)')
    if o.interval_us <= 0 or o.round_trips <= 0:
        raise Error('--interval-us and --round-trips must be positive')
    runs = collections.defaultdict(list)
    leaves = collections.defaultdict(lambda: collections.defaultdict(collections.Counter))
    for path in o.files:
        v = variant_of(path)
        parts, lv = split(path)
        runs[v].append(parts)
        for p, c in lv.items():
            leaves[v][p].update(c)
    cols = ['client', 'client-kernel', 'client-user', 'poller', 'scheduler', 'echo', 'busy', 'other']
    print('CPU µs per round trip, median over runs (runs)')
    print()
    print('| variant | runs | ' + ' | '.join(cols) + ' |')
    print('|---|---:|' + '---:|' * len(cols))
    for v, rs in runs.items():
        cells = [f'{statistics.median(r[c] for r in rs) * o.interval_us / o.round_trips:.2f}' for c in cols]
        print(f'| {v} | {len(rs)} | ' + ' | '.join(cells) + ' |')
    for v in runs:
        for p in ('client', 'poller', 'scheduler'):
            total = sum(leaves[v][p].values())
            if not total:
                continue
            print()
            print(f'{v}, {p}: hottest leaf frames (share of the part\'s samples, all runs)')
            for frame, c in leaves[v][p].most_common(o.top):
                print(f'  {100 * c / total:5.1f}%  {frame}')
    return 0


if __name__ == '__main__':
    try:
        sys.exit(main(sys.argv[1:]))
    except (Error, OSError) as e:
        print(f'cpu-by-part.py: error: {e}', file=sys.stderr)
        sys.exit(1)
