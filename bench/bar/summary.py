#!/usr/bin/env python3
"""Summary of a bar run (bench/bar/run.sh): every criterion of the
carrier-polling bar (issue 18) against the cells' pages in DIR.

Usage: summary.py DIR > DIR/summary.md

A page's tables are read by their header ("| variant | ..."): a row per
variant (median [min-max] over its runs) and a row "**V ÷ BASE** (per pair)"
per other variant (per-pair ratios). A cell whose page is missing is "not run".
"""
import os
import re
import sys

BASE, ET, MODE4 = "UPSTREAM", "ET2", "MODE4"

NUM = r"[-+0-9.,e]+"
STAT = re.compile(rf"^({NUM})(?: \[({NUM})[–-]({NUM})\])?$")


def number(s):
    return float(s.replace(",", ""))


def stat(cell):
    """'0.388 [0.366–0.408]' -> (0.388, 0.366, 0.408); '1.0' -> (1.0, 1.0, 1.0);
    'n/a' or anything else -> None."""
    m = STAT.match(cell.strip())
    if not m:
        return None
    med = number(m.group(1))
    if m.group(2) is None:
        return (med, med, med)
    return (med, number(m.group(2)), number(m.group(3)))


def tables(text):
    """{row name: {column: stat}} over every '| variant |' table of a page;
    a ratio row is named 'V÷BASE'."""
    rows = {}
    header = None
    for line in text.splitlines():
        if not line.startswith("|"):
            header = None
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if cells[0] == "variant":
            header = cells
            continue
        if header is None or set(cells[0]) <= set("-: "):
            continue
        m = re.match(r"^\*\*(\S+) ÷ (\S+)\*\*", cells[0])
        name = f"{m.group(1)}÷{m.group(2)}" if m else cells[0]
        rows.setdefault(name, {}).update(
            {h: stat(c) for h, c in zip(header[1:], cells[1:])})
    return rows


def fmt(s, digits=3):
    if s is None:
        return "n/a"
    med, lo, hi = s
    if lo == hi:
        return f"{med:.{digits}g}" if med and abs(med) < 0.01 else f"{med:.{digits}f}"
    if med and abs(med) < 0.01:
        return f"{med:.{digits}g} [{lo:.{digits}g}–{hi:.{digits}g}]"
    return f"{med:.{digits}f} [{lo:.{digits}f}–{hi:.{digits}f}]"


class Cell:
    def __init__(self, rows):
        self.rows = rows

    def get(self, row, col):
        return self.rows.get(row, {}).get(col)

    def ratio(self, variant, col):
        return self.get(f"{variant}÷{BASE}", col)


# (cell, criterion, bar text, evaluate(cell) -> (MODE4 text, ET2 text, met))
def judged(read, met, show=lambda c, v: fmt(v)):
    """read(cell, variant) -> stat; met(cell, MODE4's median) -> bool, or None
    when it cannot be judged; show(cell, stat) -> the text of a variant's value."""
    def ev(c):
        m, e = read(c, MODE4), read(c, ET)
        return show(c, m), show(c, e), None if m is None else met(c, m[0])
    return ev


def ratio(col):
    return lambda c, v: c.ratio(v, col)


def value(col):
    return lambda c, v: c.get(v, col)


def ratio_at_most(col, limit):
    return judged(ratio(col), lambda c, x: x <= limit)


def ratio_at_least(col, limit):
    return judged(ratio(col), lambda c, x: x >= limit)


def value_at_most(col, limit):
    return judged(value(col), lambda c, x: x <= limit)


def base_difference(col, sign, met, digits):
    """Judges sign × (variant's median − the baseline's) with met."""
    def show(c, v):
        b = c.get(BASE, col)
        if v is None or b is None:
            return fmt(v)
        d = sign * (v[0] - b[0])
        return f"{d:{'+' if sign > 0 else ''}.{digits}f} ({b[0]:.{digits}f} → {v[0]:.{digits}f})"

    def ok(c, x):
        b = c.get(BASE, col)
        return None if b is None else met(sign * (x - b[0]))
    return judged(value(col), ok, show)


def below_base_by(col, amount):
    """The variant's median is at least `amount` below the baseline's."""
    return base_difference(col, -1, lambda d: d >= amount, 2)


def above_base_by_at_most(col, amount):
    return base_difference(col, +1, lambda d: d <= amount, 4)


def not_worse_than_et(col, higher_is_better):
    def ev(c):
        m, e = c.ratio(MODE4, col), c.ratio(ET, col)
        if m is None or e is None:
            return fmt(m), fmt(e), None
        met = m[0] >= e[0] if higher_is_better else m[0] <= e[0]
        if not met and m[1] <= e[2] and e[1] <= m[2]:
            return fmt(m), fmt(e), "no (ranges overlap)"
        return fmt(m), fmt(e), met
    return ev


CRITERIA = []
for p in ("p1", "p2"):
    cell = f"latency-{p}"
    CRITERIA += [
        (cell, "p50", "≤ 0.80 × upstream", ratio_at_most("p50 µs", 0.80)),
        (cell, "p99", "not worse (≤ 1.00 ×)", ratio_at_most("p99 µs", 1.00)),
        (cell, "p99.9", "not worse (≤ 1.00 ×)", ratio_at_most("p99.9 µs", 1.00)),
        (cell, "context switches per round trip", "≥ 0.9 below upstream's", below_base_by("cs/rt", 0.9)),
    ]


def rate_at_least_unless_peer_bound(col, limit, cap):
    """ratio_at_least, unless the peer's pace caps the rate below limit ×
    upstream's median (cap: requests/s at most, clients ÷ mean reply delay):
    then no runtime can meet it, and the verdict says so."""
    at_least = ratio_at_least(col, limit)

    def ev(c):
        m, e, met = at_least(c)
        b = c.get(BASE, col)
        if met is not None and not met and b is not None and b[0] * limit > cap:
            met = (f"peer-bound: the peer answers {cap:,.0f}/s at most, "
                   f"{limit:g} × upstream's {b[0]:,.0f}/s would be {b[0] * limit:,.0f}/s")
        return m, e, met
    return ev


WAITING_100_CLIENTS = 100   # bench/bar/run.sh's waiting-100 cells
for d in ("300", "3000"):
    cell = f"waiting-100-exp{d}"
    cap = WAITING_100_CLIENTS * 1e6 / int(d)
    CRITERIA += [
        (cell, "context switches per request", "≤ 1.1", value_at_most("context switches/request", 1.1)),
        (cell, "requests/s", "≥ 1.15 × upstream",
         rate_at_least_unless_peer_bound("requests/s", 1.15, cap)),
        (cell, "CPU per request", "≤ 0.85 × upstream", ratio_at_most("CPU µs/request", 0.85)),
    ]
CRITERIA += [
    ("waiting-10", "requests/s", "not slower (≥ 1.00 ×)", ratio_at_least("requests/s", 1.00)),
    ("pingpong-p2", "ops/s", "≥ 1.10 × upstream", ratio_at_least("ops/s", 1.10)),
    ("pingpong-p2", "CPU per op", "≤ 0.90 × upstream", ratio_at_most("CPU µs/op", 0.90)),
    ("pingpong-p2", "`epoll_ctl` per round trip", "≤ 0.01", value_at_most("epoll_ctl/op", 0.01)),
    ("pingpong-p2", "context switches per round trip", "≤ 0.10", value_at_most("context switches/op", 0.10)),
]
for col, hib in (("ops/s", True), ("CPU µs/op", False), ("context switches/op", False),
                 ("epoll_ctl/op", False), ("all syscalls/op", False)):
    CRITERIA.append(("pingpong-p1", col + " (× upstream)", "not worse than ET2", not_worse_than_et(col, hib)))
CRITERIA += [
    ("idle-10000", "share of a core over 60 s", "≤ upstream's + 0.01", above_base_by_at_most("share of a core", 0.01)),
    ("idle-0", "context switches over 60 s", "≤ upstream's (≤ 1.00 ×)", ratio_at_most("context switches in window", 1.00)),
]
for p in ("p1", "p2"):
    CRITERIA += [
        (f"compute-{p}", "tasks/s", "≥ 0.98 × upstream", ratio_at_least("tasks/s", 0.98)),
        (f"compute-{p}", "CPU per task", "≤ 1.02 × upstream", ratio_at_most("CPU µs/task", 1.02)),
    ]
CRITERIA += [
    ("busy-p2", "p50", "not worse (≤ 1.00 ×)", ratio_at_most("p50 µs", 1.00)),
    ("busy-p2", "p99", "not worse (≤ 1.00 ×)", ratio_at_most("p99 µs", 1.00)),
]


def summary(d):
    out = ["# The carrier-polling bar (issue 18): one run of bench/bar/run.sh", "",
           f"Pages, CSVs and logs of each cell are beside this file in `{os.path.basename(os.path.abspath(d))}/`;",
           "the commands are in `commands.txt`, each page gives its machine, load",
           "averages and pairs. Ratios are per pair against UPSTREAM, median",
           "[min–max]; values are medians over the runs. *met* judges the MODE4",
           "median against the bar; ET2 is shown beside it.", "",
           "| cell | criterion | bar | MODE4 | ET2 | met |", "|---|---|---|---|---|---|"]
    pages = {}
    for cell, what, bar, ev in CRITERIA:
        if cell not in pages:
            path = os.path.join(d, cell + ".md")
            pages[cell] = None
            if os.path.exists(path):
                with open(path, encoding="utf-8") as f:
                    pages[cell] = Cell(tables(f.read()))
        c = pages[cell]
        if c is None:
            out.append(f"| {cell} | {what} | {bar} | not run | | |")
            continue
        m, e, met = ev(c)
        verdict = ("not measured" if met is None else met if isinstance(met, str)
                   else "**yes**" if met else "no")
        out.append(f"| [{cell}]({cell}.md) | {what} | {bar} | {m} | {e} | {verdict} |")
    return "\n".join(out) + "\n"


if __name__ == "__main__":
    if len(sys.argv) != 2 or not os.path.isdir(sys.argv[1]):
        sys.exit("usage: summary.py DIR (a bench/bar/run.sh output directory)")
    sys.stdout.write(summary(sys.argv[1]))
