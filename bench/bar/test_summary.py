#!/usr/bin/env python3
"""Unit tests of bench/bar/summary.py: table parsing and the bar's verdicts."""
import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import summary as S  # noqa: E402

PINGPONG_P2 = """\
# Ping-pong

| variant | ops/s | CPU µs/op | context switches/op | epoll_ctl/op |
|---|---:|---:|---:|---:|
| UPSTREAM | 104,540 [99,115–106,835] | 16.7 [16.5–17.3] | 0.189 [0.176–0.201] | 1.07 [1.06–1.08] |
| ET2 | 108,000 [107,031–111,378] | 16.1 [15.8–16.4] | 0.190 [0.183–0.209] | 0.077 [0.073–0.087] |
| MODE4 | 115,000 [110,289–118,403] | 14.6 [14.5–15.2] | 0.10 [0.086–0.138] | 6e-04 [5e-04–7e-04] |
| **ET2 ÷ UPSTREAM** (per pair) | 1.049 [1.045–1.081] | 0.965 [0.94–0.99] | 0.962 [0.9–1.1] | 0.07 [0.06–0.08] |
| **MODE4 ÷ UPSTREAM** (per pair) | 1.100 [1.031–1.119] | 0.901 [0.835–0.926] | 0.797 [0.6–0.9] | 0.001 |

## All runs, in execution order

| pair | variant | ops/s | CPU µs/op |
|---:|---|---:|---:|
| 1 | MODE4 | 1 | 99 |
"""

PINGPONG_P1 = """\
| variant | ops/s | CPU µs/op | context switches/op | epoll_ctl/op | all syscalls/op |
|---|---:|---:|---:|---:|---:|
| **ET2 ÷ UPSTREAM** (per pair) | 1.116 [1.105–1.208] | 0.907 [0.852–0.926] | 0.454 [0.334–0.758] | 0.003 [0.002–0.009] | 0.850 [0.837–0.855] |
| **MODE4 ÷ UPSTREAM** (per pair) | 1.111 [1.077–1.261] | 0.950 [0.930–0.960] | 0.400 [0.3–0.5] | 0.001 | n/a |
"""

IDLE = """\
| variant | CPU s in window | share of a core | context switches in window | context switches/s |
|---|---:|---:|---:|---:|
| UPSTREAM | 0.15 [0.09–0.3] | 0.0025 [0.0015–0.005] | 1,680 [1,600–1,700] | 28 [27–29] |
| ET2 | 0.2 | 0.0030 | 1,680 | 28 |
| MODE4 | 0.9 | 0.0130 [0.0074–0.022] | 1,690 | 28.1 |
| **ET2 ÷ UPSTREAM** (per pair) | 1.1 | 1.1 | 1.000 | 1.000 |
| **MODE4 ÷ UPSTREAM** (per pair) | 6 | 5 | 1.006 [1.0–1.01] | 1.006 |
"""

LATENCY = """\
| variant | p50 µs | p90 µs | p99 µs | p99.9 µs | max µs | cs/rt | CPU µs/rt |
|---|---|---|---|---|---|---|---|
| UPSTREAM | 60.00 [58.00–62.00] | 70 | 90 | 150 | 900 | 3.02 [3.01–3.03] | 20 |
| ET2 | 61 | 70 | 91 | 151 | 800 | 3.01 | 19 |
| MODE4 | 24.00 | 30 | 40 | 80 | 700 | 2.12 [2.1–2.2] | 15 |
| **ET2 ÷ UPSTREAM** (per pair) | 1.019 | 1.0 | 1.029 | 1.0 | 0.9 | 1.0 | 0.95 |
| **MODE4 ÷ UPSTREAM** (per pair) | 0.800 [0.78–0.82] | 0.4 | 1.001 [0.9–1.2] | 0.5 | 0.8 | 0.70 | 0.75 |
"""

WAITING_TEMPLATE = """\
| variant | requests/s | CPU µs/request | context switches/request |
|---|---:|---:|---:|
| UPSTREAM | {up} | 30.0 | 2.00 |
| ET2 | 33,000 | 29.0 | 0.50 |
| MODE4 | 33,100 | 24.0 | 0.20 |
| **ET2 ÷ UPSTREAM** (per pair) | 1.010 | 0.96 | 0.25 |
| **MODE4 ÷ UPSTREAM** (per pair) | {ratio} | 0.80 | 0.10 |
"""


def verdicts(pages):
    with tempfile.TemporaryDirectory() as d:
        for cell, text in pages.items():
            with open(os.path.join(d, cell + ".md"), "w", encoding="utf-8") as f:
                f.write(text)
        text = S.summary(d)
    out = {}
    for line in text.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 6 and cells[0] not in ("cell", "---"):
            name = cells[0].split("]")[0].lstrip("[")
            out[(name, cells[1])] = cells[3:]
    return out


class Parse(unittest.TestCase):
    def test_stat(self):
        self.assertEqual(S.stat("0.388 [0.366–0.408]"), (0.388, 0.366, 0.408))
        self.assertEqual(S.stat("132,321 [130,309–134,701]"), (132321, 130309, 134701))
        self.assertEqual(S.stat("4.1e-06 [2.4e-06–2.2e-05]"), (4.1e-06, 2.4e-06, 2.2e-05))
        self.assertEqual(S.stat("0"), (0, 0, 0))
        self.assertIsNone(S.stat("n/a"))

    def test_tables_read_variant_and_ratio_rows_only(self):
        rows = S.tables(PINGPONG_P2)
        self.assertEqual(rows["MODE4"]["ops/s"][0], 115000)
        self.assertEqual(rows["MODE4÷UPSTREAM"]["ops/s"], (1.1, 1.031, 1.119))
        self.assertEqual(rows["MODE4"]["CPU µs/op"][0], 14.6, "the 'All runs' table must not overwrite a variant row")


class Verdicts(unittest.TestCase):
    def test_limits_are_inclusive(self):
        v = verdicts({"pingpong-p2": PINGPONG_P2, "latency-p1": LATENCY})
        self.assertEqual(v[("pingpong-p2", "ops/s")][2], "**yes**")  # 1.100 >= 1.10
        self.assertEqual(v[("pingpong-p2", "context switches per round trip")][2], "**yes**")  # 0.10 <= 0.10
        self.assertEqual(v[("latency-p1", "p50")][2], "**yes**")  # 0.800 <= 0.80

    def test_failing_criteria(self):
        v = verdicts({"pingpong-p2": PINGPONG_P2, "latency-p1": LATENCY})
        self.assertEqual(v[("pingpong-p2", "CPU per op")][2], "no")  # 0.901 > 0.90
        self.assertEqual(v[("latency-p1", "p99")][2], "no")  # 1.001 > 1.00
        self.assertEqual(v[("latency-p1", "context switches per round trip")][2], "no")  # 3.02 - 2.12 < 0.9
        self.assertIn("0.90 (3.02 → 2.12)", v[("latency-p1", "context switches per round trip")][0])

    def test_not_worse_than_et(self):
        v = verdicts({"pingpong-p1": PINGPONG_P1})
        self.assertEqual(v[("pingpong-p1", "ops/s (× upstream)")][2], "no (ranges overlap)")
        self.assertEqual(v[("pingpong-p1", "CPU µs/op (× upstream)")][2], "no")  # 0.93–0.96 vs 0.852–0.926
        self.assertEqual(v[("pingpong-p1", "context switches/op (× upstream)")][2], "**yes**")
        self.assertEqual(v[("pingpong-p1", "all syscalls/op (× upstream)")][2], "not measured")

    def test_idle_absolute_share(self):
        v = verdicts({"idle-10000": IDLE, "idle-0": IDLE})
        share = v[("idle-10000", "share of a core over 60 s")]
        self.assertEqual(share[2], "no")  # 0.0130 - 0.0025 > 0.01
        self.assertEqual(v[("idle-0", "context switches over 60 s")][2], "no")  # 1.006 > 1.00

    def test_peer_bound_rate(self):
        # 100 clients, 3 ms mean delay: at most 33,333 requests/s; 1.15 x 32,500 is not reachable
        # the same page where the peer leaves room (300 us: 333,333/s at most) is a plain miss
        miss = WAITING_TEMPLATE.format(up="32,500", ratio="1.002")
        met = WAITING_TEMPLATE.format(up="32,500", ratio="1.150")
        v = verdicts({"waiting-100-exp3000": miss, "waiting-100-exp300": miss})
        self.assertTrue(v[("waiting-100-exp3000", "requests/s")][2].startswith("peer-bound: the peer answers 33,333/s at most"),
                        v[("waiting-100-exp3000", "requests/s")])
        self.assertEqual(v[("waiting-100-exp300", "requests/s")][2], "no")
        v = verdicts({"waiting-100-exp3000": met})
        self.assertEqual(v[("waiting-100-exp3000", "requests/s")][2], "**yes**")

    def test_missing_cell_is_not_run(self):
        v = verdicts({})
        self.assertEqual(v[("busy-p2", "p50")][0], "not run")
        self.assertEqual(len([k for k in v if k[0] == "busy-p2"]), 2)


if __name__ == "__main__":
    unittest.main()
