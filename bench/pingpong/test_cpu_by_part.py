#!/usr/bin/env python3
"""Unit tests of bench/pingpong/cpu-by-part.py: which part a stack is given to, and the table."""
import contextlib
import importlib.util
import io
import os
import tempfile
import unittest

_here = os.path.dirname(os.path.abspath(__file__))
_spec = importlib.util.spec_from_file_location('cpu_by_part', os.path.join(_here, 'cpu-by-part.py'))
C = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(C)

CARRIER = 'java/lang/Thread.run;java/util/concurrent/ForkJoinWorkerThread.run;java/util/concurrent/ForkJoinPool.runWorker'
VTHREAD = CARRIER + ';java/lang/VirtualThread.run;jdk/internal/vm/Continuation.enter'
CLIENT = VTHREAD + ';Latency.lambda$main$0;java/net/Socket$SocketInputStream.read;sun/nio/ch/NioSocketImpl.park'


class PartOf(unittest.TestCase):
    def test_client_wins_over_poller_and_scheduler(self):
        self.assertEqual(C.part_of((CLIENT + ';sun/nio/ch/Poller.poll').split(';')), 'client')

    def test_echo_thread_started_by_a_main_lambda_is_echo(self):
        self.assertEqual(C.part_of('java/lang/Thread.run;Latency.lambda$main$0;PingPong.echo;epoll_wait'.split(';')), 'echo')

    def test_poller_outside_the_client(self):
        self.assertEqual(C.part_of((CARRIER + ';sun/nio/ch/EPollPoller.poll;epoll_wait').split(';')), 'poller')

    def test_scheduler(self):
        self.assertEqual(C.part_of((CARRIER + ';java/util/concurrent/ForkJoinPool.scan').split(';')), 'scheduler')

    def test_busy_and_echo_and_other(self):
        self.assertEqual(C.part_of((VTHREAD + ';Latency.lambda$startBusyTasks$1;java/lang/System.nanoTime').split(';')), 'busy')
        self.assertEqual(C.part_of('java/lang/Thread.run;PingPong.echo;sun/nio/ch/SelectorImpl.select'.split(';')), 'echo')
        self.assertEqual(C.part_of(['[C2 CompilerThread0]', 'Compile::Compile']), 'other')


class Table(unittest.TestCase):
    def run_main(self, files, *args):
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            C.main(['--interval-us', '100', '--round-trips', '1000', *args, *files])
        return out.getvalue()

    def test_median_per_round_trip_and_kernel_split(self):
        with tempfile.TemporaryDirectory() as d:
            def write(name, lines):
                p = os.path.join(d, name)
                with open(p, 'w') as f:
                    f.write('\n'.join(lines) + '\n')
                return p
            files = [
                write('OFF-1.collapsed', [CLIENT + ';read_[k] 10', CLIENT + ' 10', CARRIER + ';java/util/concurrent/ForkJoinPool.scan 5']),
                write('OFF-2.collapsed', [CLIENT + ';read_[k] 30', CLIENT + ' 10']),
                write('OFF-3.collapsed', [CLIENT + ';read_[k] 20', CLIENT + ' 10']),
                write('MODE4-4.collapsed', [CARRIER + ';sun/nio/ch/EPollPoller.poll 7']),
            ]
            out = self.run_main(files)
        # OFF: client samples 20, 40, 30 -> median 30 x 100 us / 1000 round trips = 3.00
        self.assertIn('| OFF | 3 | 3.00 | 2.00 | 1.00 | 0.00 | 0.00 |', out)
        self.assertIn('| MODE4 | 1 | 0.00 | 0.00 | 0.00 | 0.70 |', out)
        self.assertIn('read_[k]', out)

    def test_bad_input_is_named(self):
        with tempfile.TemporaryDirectory() as d:
            p = os.path.join(d, 'OFF-1.collapsed')
            with open(p, 'w') as f:
                f.write('no count here\n')
            with self.assertRaisesRegex(C.Error, 'OFF-1.collapsed:1: not a collapsed stack'):
                self.run_main([p])
            q = os.path.join(d, 'nameless.collapsed')
            open(q, 'w').close()
            with self.assertRaisesRegex(C.Error, 'must start with the variant name'):
                self.run_main([q])


WAITER = VTHREAD + ';WaitingClient.lambda$main$0;java/net/Socket$SocketInputStream.read;sun/nio/ch/NioSocketImpl.read'


class ByCall(unittest.TestCase):
    def test_the_innermost_named_frame_decides(self):
        self.assertEqual(C.call_of((WAITER + ';sun/nio/ch/SocketDispatcher.read0;ksys_read_[k]').split(';')), 'read syscall')
        self.assertEqual(C.call_of((WAITER + ';sun/nio/ch/Poller.poll;sun/nio/ch/EPoll.wait').split(';')), 'epoll_wait')
        self.assertEqual(C.call_of((VTHREAD + ';sun/nio/ch/NioSocketImpl.write;java/util/concurrent/locks/ReentrantLock.lock').split(';')),
                         'socket and lock code')

    def test_a_park_belongs_to_whoever_parks(self):
        park = ';java/util/concurrent/locks/LockSupport.parkNanos;jdk/internal/misc/Unsafe.park;futex_[k]'
        self.assertEqual(C.call_of(('java/lang/Thread.run;sun/nio/ch/Poller$IdleCarrierPoller.watchdogLoop' + park).split(';')), 'poller')
        self.assertEqual(C.call_of((CARRIER + ';java/util/concurrent/ForkJoinPool.awaitWork' + park).split(';')), 'scheduler')

    def test_jit_and_vm_frames(self):
        self.assertEqual(C.call_of('start_thread;CompileBroker::compiler_thread_loop;Compile::Compile'.split(';')), 'jit')
        self.assertEqual(C.call_of('[not_walkable_Java];long* thaw<Config>'.split(';')), 'continuation (VM)')
        self.assertEqual(C.call_of('start_thread;G1ConcurrentRefineThread::run_service'.split(';')), 'other')

    def test_shares_leave_the_jit_apart(self):
        with tempfile.TemporaryDirectory() as d:
            p = os.path.join(d, 'MODE4-1.collapsed')
            with open(p, 'w') as f:
                f.write(WAITER + ';sun/nio/ch/SocketDispatcher.read0 30\n'
                        + CARRIER + ';java/util/concurrent/ForkJoinPool.scan 10\n'
                        + 'start_thread;CompileBroker::compiler_thread_loop 10\n')
            out = io.StringIO()
            with contextlib.redirect_stdout(out):
                C.main(['--by-call', p])
        # 40 samples outside the JIT: read 75%, scheduler 25%; JIT 10 of 50 = 20%
        self.assertIn('| MODE4 | 1 | 0.0 | 75.0 | 0.0 | 0.0 | 0.0 | 25.0 | 0.0 | 0.0 | 0.0 | 20.0 |', out.getvalue())

    def test_counts_are_needed_without_by_call(self):
        with self.assertRaisesRegex(C.Error, '--round-trips are needed'):
            C.main(['x.collapsed'])


if __name__ == '__main__':
    unittest.main()
