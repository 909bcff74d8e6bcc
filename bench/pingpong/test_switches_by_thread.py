#!/usr/bin/env python3
"""Unit tests of bench/pingpong/switches-by-thread.py --sites-label: what a carrier's
sleep and wakeup are attributed to, from perf script's call stacks."""
import contextlib
import importlib.util
import io
import os
import sys
import unittest

_here = os.path.dirname(os.path.abspath(__file__))
_spec = importlib.util.spec_from_file_location('switches', os.path.join(_here, 'switches-by-thread.py'))
M = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(M)

JIT = '/tmp/perf-1.map'
LIBJVM = '/jdk/lib/server/libjvm.so'
K = '[kernel.kallsyms]'


def event(comm, tid, t, name, details, frames):
    head = f'{comm} {tid} [000] {t:.6f}: {name}: {details}'
    return '\n'.join([head] + [f'\t    7f00 {sym}+0x10 ({dso})' for sym, dso in frames]) + '\n\n'


def switch(comm, tid, t, state, frames):
    return event(comm, tid, t, 'sched:sched_switch',
                 f'prev_comm={comm} prev_pid={tid} prev_prio=120 prev_state={state} ==> next_comm=swapper/0 '
                 'next_pid=0 next_prio=120', frames)


def wakeup(comm, tid, t, target, frames):
    return event(comm, tid, t, 'sched:sched_wakeup', f'comm=ForkJoi..rker-1 pid={target} prio=120 target_cpu=000',
                 frames)


EPOLL_SLEEP = [('__schedule', K), ('do_epoll_wait', K), ('epoll_wait', '/lib/libc.so.6'),
               ('int sun.nio.ch.EPoll.wait(int, long, int, int)', JIT),
               ('int sun.nio.ch.Poller$IdleCarrierPoller.poll(boolean)', JIT),
               ('boolean java.util.concurrent.ForkJoinPool.awaitIO(java.util.concurrent.ForkJoinPool$WorkQueue, int)', JIT),
               ('int java.util.concurrent.ForkJoinPool.awaitWork(java.util.concurrent.ForkJoinPool$WorkQueue, int)', JIT),
               ('Interpreter', JIT)]
FUTEX_SLEEP = [('__schedule', K), ('futex_wait', K), ('__futex_abstimed_wait_common', '/lib/libc.so.6')]
PARK_PROBE = [('Unsafe_Park', LIBJVM), ('void jdk.internal.misc.Unsafe.park(boolean, long)', JIT),
              ('int java.util.concurrent.ForkJoinPool.awaitWork(java.util.concurrent.ForkJoinPool$WorkQueue, int)', JIT),
              ('int java.util.concurrent.ForkJoinPool.deactivate(java.util.concurrent.ForkJoinPool$WorkQueue, int)', JIT)]
UNPARK_PROBE = [('Unsafe_Unpark', LIBJVM), ('void jdk.internal.misc.Unsafe.unpark(java.lang.Object)', JIT),
                ('void java.util.concurrent.ForkJoinPool.signalWork()', JIT),
                ('boolean java.util.concurrent.ForkJoinPool.awaitIO(java.util.concurrent.ForkJoinPool$WorkQueue, int)', JIT)]
FUTEX_WAKE = [('try_to_wake_up', K), ('futex_wake', K), ('pthread_cond_signal', '/lib/libc.so.6')]
EVENTFD_WAKE = [('try_to_wake_up', K), ('ep_poll_callback', K), ('eventfd_write', K), ('write', '/lib/libc.so.6'),
                ('void sun.nio.ch.IOUtil.write1(int, byte)', JIT), ('void sun.nio.ch.EventFD.set()', JIT),
                ('void sun.nio.ch.Poller$IdleCarrierPoller.wakeup()', JIT),
                ('void java.util.concurrent.ForkJoinPool.wakeCarrierPoller()', JIT),
                ('void java.util.concurrent.ForkJoinPool.signalWork()', JIT),
                ('void java.util.concurrent.ForkJoinPool.poolSubmit(boolean, java.util.concurrent.ForkJoinTask)', JIT)]
SOCKET_WAKE = [('try_to_wake_up', K), ('ep_poll_callback', K), ('sock_def_readable', K), ('tcp_sendmsg', K),
               ('int sun.nio.ch.SocketDispatcher.write0(java.io.FileDescriptor, long, int)', JIT)]


def output(function, text, *args):
    """What function(*args) prints with text on its standard input."""
    out = io.StringIO()
    stdin = sys.stdin
    sys.stdin = io.StringIO(text)
    try:
        with contextlib.redirect_stdout(out):
            function(*args)
    finally:
        sys.stdin = stdin
    return out.getvalue()


def site_rows(printed):
    return {(f[4], f[5]): float(f[6]) for f in (line.split('\t') for line in printed.splitlines())}


def sites(text, total=1000):
    return site_rows(output(M.sites, text, f'MODE4 1 {total}'))


def trace_line(comm, tid, cpu, t, name, details):
    """A line of perf script -F comm,tid,cpu,time,event,trace (comm right-aligned)."""
    return f'{comm:>16} {tid} [{cpu:03d}] {t:.6f}: {name}: {details}\n'


def sw(comm, tid, cpu, t, state, next_comm, next_pid):
    """A sched_switch line of a system-wide recording: comm (tid) leaves cpu."""
    pid = str(tid).split('/')[-1]
    return trace_line(comm, tid, cpu, t, 'sched:sched_switch',
                      f'prev_comm={comm} prev_pid={pid} prev_prio=120 prev_state={state} ==> '
                      f'next_comm={next_comm} next_pid={next_pid} next_prio=120')


def wk(comm, tid, cpu, t, wakee, wakee_tid, target):
    """A sched_wakeup line: comm (tid) on cpu wakes wakee onto target."""
    return trace_line(comm, tid, cpu, t, 'sched:sched_wakeup',
                      f'comm={wakee} pid={wakee_tid} prio=120 target_cpu={target:03d}')


class PlacementTest(unittest.TestCase):
    def rows(self, text):
        return site_rows(output(M.placement_label, text, 'MODE4 1 1000'))

    def test_a_wakeup_onto_the_wakers_cpu_while_the_other_idles(self):
        text = (sw('ForkJoi..rker-1', 11, 1, 1.0, 'S', 'swapper/1', 0)
                + wk('echo-server', 12, 0, 1.1, 'ForkJoi..rker-1', 11, 0)
                + sw('echo-server', 12, 0, 1.2, 'R+', 'ForkJoi..rker-1', 11))
        rows = self.rows(text)
        self.assertEqual(rows[('wakeup placement', "carrier by echo server: onto the waker's CPU, another CPU idle")],
                         0.001)
        self.assertEqual(rows[('preemption', 'echo server by carrier, another CPU idle')], 0.001)

    def test_a_cpu_that_switched_a_thread_in_is_not_idle(self):
        # the switch-in from the idle task is the swapper's event, seen in a system-wide recording
        text = (sw('ForkJoi..rker-1', 11, 1, 1.0, 'S', 'swapper/1', 0)
                + sw('swapper/1', 0, 1, 1.05, 'R', 'ForkJoi..rker-2', 13)
                + wk('echo-server', 12, 0, 1.1, 'ForkJoi..rker-1', 11, 0))
        rows = self.rows(text)
        self.assertEqual(rows, {('wakeup placement', "carrier by echo server: onto the waker's CPU, no other CPU idle"):
                                0.001})

    def test_a_wakeup_onto_an_idle_cpu_makes_it_busy(self):
        text = (sw('ForkJoi..rker-1', 11, 1, 1.0, 'S', 'swapper/1', 0)
                + wk('echo-server', 12, 0, 1.1, 'ForkJoi..rker-1', 11, 1)
                + wk('echo-server', 12, 0, 1.1, 'ForkJoi..rker-2', 13, 0))
        rows = self.rows(text)
        self.assertEqual(rows[('wakeup placement', 'carrier by echo server: onto another CPU, no other CPU idle')], 0.001)
        self.assertEqual(rows[('wakeup placement', "carrier by echo server: onto the waker's CPU, no other CPU idle")],
                         0.001)

    def test_only_the_jvms_threads_are_counted(self):
        line = (wk('echo-server', '7/12', 0, 1.1, 'ForkJoi..rker-1', 11, 1)
                + sw('ForkJoi..rker-1', '7/11', 1, 1.2, 'S', 'swapper/1', 0)
                + sw('ForkJoi..rker-1', '8/21', 1, 1.25, 'R', 'swapper/1', 0)     # another JVM's
                + wk('echo-server', '8/22', 0, 1.3, 'ForkJoi..rker-1', 21, 1))
        printed = output(M.placement_label, line, 'MODE4 1 1000 7')
        self.assertEqual(len(printed.splitlines()), 1, printed)

    def test_a_preempting_thread_of_another_process_is_named_so(self):
        # a peer JVM's main thread is called "java", as the JVM's own is
        text = (sw('ForkJoi..rker-1', '7/11', 0, 1.0, 'R', 'java', 99)
                + sw('java', '7/12', 1, 1.05, 'S', 'swapper/1', 0)
                + sw('ForkJoi..rker-1', '7/11', 0, 1.1, 'R', 'java', 12))
        rows = site_rows(output(M.placement_label, text, 'MODE4 1 1000 7'))
        self.assertEqual(rows, {('preemption', 'carrier by other process, no other CPU idle'): 0.001,
                                ('preemption', 'carrier by other JVM thread, another CPU idle'): 0.001})

    def test_an_unknown_cpu_is_not_idle(self):
        rows = self.rows(wk('echo-server', 12, 0, 1.1, 'ForkJoi..rker-1', 11, 1))
        self.assertEqual(rows, {('wakeup placement', 'carrier by echo server: onto another CPU, no other CPU idle'): 0.001})


class SitesTest(unittest.TestCase):
    def test_blocking_poll_is_named_by_its_caller(self):
        rows = sites(switch('ForkJoi..rker-1', 11, 1.0, 'S', EPOLL_SLEEP))
        self.assertEqual(rows, {('carrier sleep', 'blocking poll: ForkJoinPool.awaitIO < ForkJoinPool.awaitWork'): 0.001})

    def test_park_takes_the_site_of_the_probe_before_it(self):
        rows = sites(event('ForkJoi..rker-1', 11, 1.0, 'probe_libjvm:etjdk_park', '(7f00)', PARK_PROBE)
                     + switch('ForkJoi..rker-1', 11, 1.0001, 'S', FUTEX_SLEEP))
        self.assertEqual(rows, {('carrier sleep', 'park: ForkJoinPool.awaitWork < ForkJoinPool.deactivate'): 0.001})

    def test_a_futex_wait_long_after_the_park_probe_is_other(self):
        rows = sites(event('ForkJoi..rker-1', 11, 1.0, 'probe_libjvm:etjdk_park', '(7f00)', PARK_PROBE)
                     + switch('ForkJoi..rker-1', 11, 1.5, 'S', FUTEX_SLEEP))
        self.assertEqual(rows, {('carrier sleep', 'other'): 0.001})

    def test_a_probe_is_used_once(self):
        rows = sites(event('ForkJoi..rker-1', 11, 1.0, 'probe_libjvm:etjdk_park', '(7f00)', PARK_PROBE)
                     + switch('ForkJoi..rker-1', 11, 1.0001, 'S', FUTEX_SLEEP)
                     + switch('ForkJoi..rker-1', 11, 1.0002, 'S', FUTEX_SLEEP))
        self.assertEqual(rows[('carrier sleep', 'other')], 0.001)

    def test_preempted_carriers_and_other_threads_are_not_sleeps(self):
        rows = sites(switch('ForkJoi..rker-1', 11, 1.0, 'S', EPOLL_SLEEP)
                     + switch('ForkJoi..rker-1', 11, 1.1, 'R', EPOLL_SLEEP)
                     + switch('echo-server', 12, 1.2, 'S', EPOLL_SLEEP))
        self.assertEqual(sum(v for (kind, where), v in rows.items() if kind == 'carrier sleep'), 0.001)
        self.assertEqual(rows[('preemption', 'carrier by kernel, no other CPU idle')], 0.001)

    def test_unpark_takes_the_site_of_the_wakers_probe(self):
        rows = sites(switch('ForkJoi..rker-1', 11, 1.0, 'S', EPOLL_SLEEP)
                     + event('ForkJoi..rker-2', 13, 2.0, 'probe_libjvm:etjdk_unpark', '(7f00)', UNPARK_PROBE)
                     + wakeup('ForkJoi..rker-2', 13, 2.0001, 11, FUTEX_WAKE))
        self.assertEqual(rows[('carrier wakeup', 'unpark by carrier: ForkJoinPool.signalWork < ForkJoinPool.awaitIO')],
                         0.001)

    def test_an_unpark_probe_is_used_by_the_first_futex_wake(self):
        rows = sites(switch('ForkJoi..rker-1', 11, 1.0, 'S', EPOLL_SLEEP)
                     + event('ForkJoi..rker-2', 13, 2.0, 'probe_libjvm:etjdk_unpark', '(7f00)', UNPARK_PROBE)
                     + event('ForkJoi..rker-2', 13, 2.0001, 'sched:sched_wakeup',
                             'comm=Common-Cleaner pid=99 prio=120 target_cpu=000', FUTEX_WAKE)
                     + wakeup('ForkJoi..rker-2', 13, 2.0002, 11, FUTEX_WAKE))
        self.assertEqual(rows[('carrier wakeup', 'other by carrier')], 0.001)

    def test_a_futex_wake_long_after_the_unpark_probe_is_other(self):
        rows = sites(switch('ForkJoi..rker-1', 11, 1.0, 'S', EPOLL_SLEEP)
                     + event('ForkJoi..rker-2', 13, 2.0, 'probe_libjvm:etjdk_unpark', '(7f00)', UNPARK_PROBE)
                     + wakeup('ForkJoi..rker-2', 13, 2.5, 11, FUTEX_WAKE))
        self.assertEqual(rows[('carrier wakeup', 'other by carrier')], 0.001)

    def test_a_waker_whose_comm_has_spaces(self):
        rows = sites(switch('ForkJoi..rker-1', 11, 1.0, 'S', EPOLL_SLEEP)
                     + wakeup('C2 Comp..hread0', 14, 2.0, 11, FUTEX_WAKE))
        self.assertEqual(rows[('carrier wakeup', 'other by other JVM thread')], 0.001)

    def test_only_frames_of_the_jit_map_are_java_sites(self):
        frames = [('__schedule', K), ('do_epoll_wait', K), ('ep_poll.isra.0', K)] + EPOLL_SLEEP[3:]
        rows = sites(switch('ForkJoi..rker-1', 11, 1.0, 'S', frames))
        self.assertEqual(rows, {('carrier sleep', 'blocking poll: ForkJoinPool.awaitIO < ForkJoinPool.awaitWork'): 0.001})

    def test_eventfd_is_told_from_readiness(self):
        rows = sites(switch('ForkJoi..rker-1', 11, 1.0, 'S', EPOLL_SLEEP)
                     + wakeup('ForkJoi..rker-2', 13, 2.0, 11, EVENTFD_WAKE)
                     + wakeup('echo-server', 12, 3.0, 11, SOCKET_WAKE))
        self.assertEqual(rows[('carrier wakeup', 'eventfd by carrier: ForkJoinPool.signalWork < ForkJoinPool.poolSubmit')],
                         0.001)
        self.assertEqual(rows[('carrier wakeup', 'readiness by echo server')], 0.001)

    def test_wakeups_of_threads_that_are_not_carriers_are_left_out(self):
        rows = sites(switch('ForkJoi..rker-1', 11, 1.0, 'S', EPOLL_SLEEP)
                     + wakeup('echo-server', 12, 3.0, 99, SOCKET_WAKE))
        self.assertNotIn(('carrier wakeup', 'readiness by echo server'), rows)

    @staticmethod
    def summary(*runs):
        """sites_summary of MODE4's runs, each (run, site, value per round trip)."""
        return output(M.sites_summary, ''.join(f'SITE\tMODE4\t{run}\t1000\tcarrier sleep\t{site}\t{value}\n'
                                               for run, site, value in runs))

    def test_summary_medians_count_a_missing_site_as_zero(self):
        printed = self.summary((1, 'other', 0.003), (2, 'other', 0.001), (3, 'park: x', 0.001))
        self.assertIn('| carrier sleep | other | 0.0010 [0.0000–0.0030] |', printed)
        self.assertIn('| carrier sleep | park: x | 0.0000 [0.0000–0.0010] |', printed)

    def test_summary_counts_the_sites_below_the_threshold_in_one_row(self):
        printed = self.summary((1, 'other', 0.003), (1, 'park: x', 0.0001), (1, 'park: y', 0.0002))
        self.assertNotIn('park: x', printed)
        self.assertIn('| carrier sleep | 2 other sites, each below 0.0005 in every run |', printed)

if __name__ == '__main__':
    unittest.main()
