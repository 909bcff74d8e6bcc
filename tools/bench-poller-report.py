#!/usr/bin/env python3
"""Report for tools/bench-poller.sh (Python standard library only).

Usage: bench-poller-report.py RAW_DIR OUT_MD

RAW_DIR is the directory bench-poller.sh filled: config.txt, machine.txt,
jdk-version.txt, commands.txt, runs.tsv, json/*.json (JMH -rf json),
profiles.tsv and profiles/ (async-profiler output). Writes OUT_MD, plots
(SVG) and results.csv into RAW_DIR. Every number in the report comes from
those files.
"""

import csv
import json
import math
import os
import re
import statistics
import sys
from collections import defaultdict

VARIANTS = ["ONESHOT", "ET"]

# perf events (perfnorm secondary metrics) -> (column title, scale, decimals)
COUNT_METRICS = [
    ("syscalls:sys_enter_epoll_ctl", "epoll_ctl/op", 1.0, 3),
    ("syscalls:sys_enter_epoll_wait", "epoll_wait/op", 1.0, 3),
    ("syscalls:sys_enter_read", "read/op", 1.0, 3),
    ("syscalls:sys_enter_write", "write/op", 1.0, 3),
    ("raw_syscalls:sys_enter", "syscalls/op", 1.0, 3),
    ("context-switches", "ctx switches/op", 1.0, 3),
    # perf reports task-clock in ms: per op in microseconds
    ("task-clock", "CPU µs/op", 1000.0, 2),
]

# frames (one frame of a collapsed stack) for the profile shares
EPOLL_CTL_FRAME = re.compile(r"epoll_ctl|EPoll[._]ctl")
POLLER_LOOP_FRAME = re.compile(
    r"^sun/nio/ch/Poller(\$[\w$]+)?\.(pollerLoop|subPollerLoop)(_\[.\])?$"
    r"|^sun/nio/ch/EPollPoller\.poll(_\[.\])?$")


def die(msg):
    sys.exit("bench-poller-report: error: " + msg)


def read_kv(path):
    d = {}
    with open(path) as f:
        for line in f:
            line = line.rstrip("\n")
            if "=" in line:
                k, v = line.split("=", 1)
                d[k] = v
    return d


def read_tsv(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f, delimiter="\t"))


def ints(s):
    return [int(x) for x in s.split(",") if x]


def stats(values):
    vals = [v for v in values if v is not None and not math.isnan(v)]
    if not vals:
        return None
    return (statistics.median(vals), min(vals), max(vals), len(vals))


def fmt_num(v, decimals):
    if v is None or math.isnan(v):
        return "n/a"
    if decimals == 0:
        return f"{v:,.0f}"
    return f"{v:,.{decimals}f}"


def fmt_stat(st, decimals):
    if st is None:
        return "n/a"
    med, lo, hi, _ = st
    return f"{fmt_num(med, decimals)} [{fmt_num(lo, decimals)}–{fmt_num(hi, decimals)}]"


def fmt_change(a, b):
    """Relative change from a to b in percent, signed."""
    if a is None or b is None or a[0] == 0:
        return "n/a"
    return f"{(b[0] - a[0]) / a[0] * 100:+.1f}%"


# ------------------------------------------------------------------ SVG

PALETTE = ["#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b",
           "#e377c2", "#17becf"]


def nice_step(span, target=6):
    if span <= 0:
        return 1.0
    raw = span / target
    mag = 10 ** math.floor(math.log10(raw))
    for m in (1, 2, 2.5, 5, 10):
        if raw <= m * mag:
            return m * mag
    return 10 * mag


def esc(s):
    return (str(s).replace("&", "&amp;").replace("<", "&lt;")
            .replace(">", "&gt;").replace('"', "&quot;"))


def svg_chart(path, title, xlabel, ylabel, xlabels, series):
    """Line chart with min-max error bars on categorical x positions.

    series: list of (label, color, dashed, [stat or None per x]).
    """
    W, H = 760, 430
    L, R, T, B = 80, 210, 40, 60
    pw, ph = W - L - R, H - T - B
    his = [st[2] for _, _, _, pts in series for st in pts if st is not None]
    ymax = max(his) if his else 1.0
    if ymax <= 0:
        ymax = 1.0
    step = nice_step(ymax * 1.05)
    ytop = step * math.ceil(ymax * 1.05 / step)
    n = len(xlabels)

    def xpos(i):
        return L + (pw * (i + 0.5) / n)

    def ypos(v):
        return T + ph - (v / ytop) * ph

    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" '
           f'viewBox="0 0 {W} {H}" font-family="sans-serif" font-size="12">',
           f'<rect width="{W}" height="{H}" fill="white"/>',
           f'<text x="{L + pw / 2}" y="22" text-anchor="middle" font-size="14" '
           f'font-weight="bold">{esc(title)}</text>']
    # grid and y ticks
    k = 0
    while True:
        v = k * step
        if v > ytop + step / 1000:
            break
        y = ypos(v)
        out.append(f'<line x1="{L}" y1="{y:.1f}" x2="{L + pw}" y2="{y:.1f}" stroke="#ddd"/>')
        label = f"{v:,.0f}" if step >= 1 else f"{v:.{max(0, -math.floor(math.log10(step)) + 1)}f}"
        out.append(f'<text x="{L - 6}" y="{y + 4:.1f}" text-anchor="end">{esc(label)}</text>')
        k += 1
    out.append(f'<line x1="{L}" y1="{T}" x2="{L}" y2="{T + ph}" stroke="black"/>')
    out.append(f'<line x1="{L}" y1="{T + ph}" x2="{L + pw}" y2="{T + ph}" stroke="black"/>')
    for i, xl in enumerate(xlabels):
        out.append(f'<text x="{xpos(i):.1f}" y="{T + ph + 18}" text-anchor="middle">{esc(xl)}</text>')
    out.append(f'<text x="{L + pw / 2}" y="{H - 15}" text-anchor="middle">{esc(xlabel)}</text>')
    out.append(f'<text x="18" y="{T + ph / 2}" text-anchor="middle" '
               f'transform="rotate(-90 18 {T + ph / 2})">{esc(ylabel)}</text>')
    # series
    nser = max(1, len(series))
    for si, (label, color, dashed, pts) in enumerate(series):
        # spread series a little so that error bars do not overlap
        off = (si - (nser - 1) / 2) * min(6, pw / n / (nser + 1))
        dash = ' stroke-dasharray="6,4"' if dashed else ""
        coords = [(xpos(i) + off, ypos(st[0])) for i, st in enumerate(pts) if st is not None]
        if len(coords) > 1:
            d = " ".join(f"{x:.1f},{y:.1f}" for x, y in coords)
            out.append(f'<polyline points="{d}" fill="none" stroke="{color}" stroke-width="2"{dash}/>')
        for i, st in enumerate(pts):
            if st is None:
                continue
            x = xpos(i) + off
            out.append(f'<line x1="{x:.1f}" y1="{ypos(st[1]):.1f}" x2="{x:.1f}" y2="{ypos(st[2]):.1f}" '
                       f'stroke="{color}" stroke-width="1.5"/>')
            fill = "white" if dashed else color
            out.append(f'<circle cx="{x:.1f}" cy="{ypos(st[0]):.1f}" r="3.5" fill="{fill}" '
                       f'stroke="{color}" stroke-width="1.5"/>')
        ly = T + 10 + si * 20
        out.append(f'<line x1="{L + pw + 15}" y1="{ly}" x2="{L + pw + 45}" y2="{ly}" '
                   f'stroke="{color}" stroke-width="2"{dash}/>')
        out.append(f'<text x="{L + pw + 52}" y="{ly + 4}">{esc(label)}</text>')
    out.append(f'<text x="{L + pw + 15}" y="{T + 10 + nser * 20 + 10}" fill="#555">'
               f'median, bar = min–max</text>')
    out.append("</svg>")
    with open(path, "w") as f:
        f.write("\n".join(out) + "\n")


# ------------------------------------------------------------------ main

def main():
    if len(sys.argv) != 3:
        die("usage: bench-poller-report.py RAW_DIR OUT_MD")
    raw, out_md = sys.argv[1], sys.argv[2]
    cfg = read_kv(os.path.join(raw, "config.txt"))
    machine = read_kv(os.path.join(raw, "machine.txt"))
    with open(os.path.join(raw, "jdk-version.txt")) as f:
        jdk_version = f.read().rstrip()
    runs = read_tsv(os.path.join(raw, "runs.tsv"))
    events = cfg["perf_events"].split(",")
    modes, pars, sizes = ints(cfg["modes"]), ints(cfg["parallelism"]), ints(cfg["sizes"])
    transports = cfg["transports"].split(",")
    pairs = int(cfg["pairs"])

    # values[(transport, mode, par, size, variant)][metric] -> list over pairs
    values = defaultdict(lambda: defaultdict(list))
    csv_rows = []
    for run in runs:
        if run["kind"] not in ("time", "count"):
            continue
        with open(os.path.join(raw, run["json"])) as f:
            results = json.load(f)
        if not results:
            die(f"{run['json']} has no results")
        for res in results:
            p = res["params"]
            key = (p["transport"], int(run["mode"]), int(run["parallelism"]),
                   int(p["readSize"]), run["variant"])
            pm = res["primaryMetric"]
            sec = res.get("secondaryMetrics", {})
            row = {"kind": run["kind"], "variant": run["variant"], "mode": run["mode"],
                   "parallelism": run["parallelism"], "pair": run["pair"],
                   "transport": p["transport"], "readSize": p["readSize"],
                   "ops_per_s": pm["score"], "jmh_error": pm["scoreError"]}
            v = values[key]
            if run["kind"] == "time":
                v["ops"].append(pm["score"])
                err = pm["scoreError"]
                if isinstance(err, (int, float)) and not math.isnan(err) and pm["score"]:
                    v["err_rel"].append(err / pm["score"] * 100)
                alloc = sec.get("gc.alloc.rate.norm")
                if alloc is None:
                    die(f"{run['json']}: no gc.alloc.rate.norm (was -prof gc used?)")
                v["alloc"].append(alloc["score"])
                row["alloc_bytes_per_op"] = alloc["score"]
            else:
                v["ops_under_perf"].append(pm["score"])
                for ev in events:
                    m = sec.get(ev)
                    if m is None:
                        die(f"{run['json']}: perfnorm did not report '{ev}' "
                            f"(JMH drops events perf does not support)")
                    v[ev].append(m["score"])
                    row[ev + "_per_op"] = m["score"]
            csv_rows.append(row)

    # results.csv: every run, every parameter set
    fields = ["kind", "variant", "mode", "parallelism", "pair", "transport", "readSize",
              "ops_per_s", "jmh_error", "alloc_bytes_per_op"] + [ev + "_per_op" for ev in events]
    with open(os.path.join(raw, "results.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=fields)
        w.writeheader()
        for row in csv_rows:
            w.writerow(row)

    def st(key, metric, scale=1.0):
        vals = values.get(key, {}).get(metric)
        if not vals:
            return None
        s = stats([x * scale for x in vals])
        return s

    rawname = os.path.basename(raw.rstrip("/"))
    md = []
    add = md.append
    add("# Virtual-thread read poller micro benchmark: ONESHOT vs ET")
    add("")
    add(f"Generated by `tools/bench-poller.sh` from {machine.get('date_start', '?')} "
        f"to {machine.get('date_end', '?')}. Every number below was produced by that run; "
        f"raw data in [`{rawname}/`]({rawname}/) ([results.csv]({rawname}/results.csv), "
        f"JMH JSON in `json/`, logs in `logs/`, command lines in "
        f"[commands.txt]({rawname}/commands.txt)).")
    add("")
    add("## Machine and JDK")
    add("")
    add(f"- CPUs (nproc): {machine.get('nproc', '?')}; CPU: {machine.get('cpu', '?')}")
    add(f"- Kernel: {machine.get('kernel', '?')}; memory: {machine.get('memory', '?')}")
    add(f"- Load average (1, 5, 15 min) at start: {machine.get('load_start', '?')}; "
        f"at end: {machine.get('load_end', '?')}")
    add(f"- {machine.get('perf', 'perf ?')}")
    add(f"- JDK under test: `{cfg['jdk']}`")
    add("")
    add("```")
    add(jdk_version)
    add("```")
    add("")
    add("## Command")
    add("")
    add("```")
    add(cfg["command"].strip())
    add("```")
    if cfg.get("bench_poller_opts"):
        add("")
        add(f"with `BENCH_POLLER_OPTS={cfg['bench_poller_opts']}`.")
    add("")
    first = {}
    with open(os.path.join(raw, "commands.txt")) as f:
        for line in f:
            rid, cmd = line.rstrip("\n").split("\t", 1)
            kind = rid.split("-", 1)[0]
            first.setdefault(kind, cmd.strip())
    add("Each JMH run is one `java -jar benchmarks.jar` invocation; the first of each kind was:")
    add("")
    for kind, what in (("time", "throughput and allocation"), ("count", "syscall counts"),
                       ("profile", "CPU profile")):
        if kind in first:
            add(f"- {what}:")
            add("")
            add("  ```")
            add("  " + first[kind])
            add("  ```")
            add("")
    add("## Method")
    add("")
    add(f"- Benchmark: `org.openjdk.bench.java.net.SocketReadPollerBench.roundTrip`: "
        f"{cfg['threads']} JMH threads run as virtual threads (`-Djmh.executor=VIRTUAL`, "
        f"checked by the benchmark), each owning one loopback TCP connection; an operation "
        f"writes a 1-byte request and reads the `readSize`-byte response fully. Peers: "
        f"{cfg['servers']} one-thread `Selector` server(s) in the same JVM (platform threads, "
        f"blocking `select(timeout)`), so only the clients use the virtual-thread poller.")
    add(f"- Variants: ONESHOT = `-Djdk.pollerEdgeTriggered=false`, ET = "
        f"`-Djdk.pollerEdgeTriggered=true`, each with `-Djdk.pollerMode=M` and "
        f"`-Djdk.virtualThreadScheduler.parallelism=P`. Extra JVM options: "
        f"`{cfg['jvm_args'] or 'none'}`.")
    add(f"- Alternation: {pairs} pair(s) per configuration. Within a pair ONESHOT then ET "
        f"run back to back, first for throughput, then for counts; the pairs are spread "
        f"over the session (pair 1 of every configuration, then pair 2, ...). Each run: "
        f"`-f {cfg['forks']} -wi {cfg['wi']} -w {cfg['w']}s -i {cfg['i']} -r {cfg['r']}s "
        f"-t {cfg['threads']}`.")
    add("- Tables give the median over the pairs and [min–max]. \"JMH error\" is the "
        "median over the runs of JMH's own 99.9% confidence half-width, relative to the "
        "score (n/a when JMH could not compute one, e.g. a single iteration).")
    add("- **ops/s** and **B/op** come from the throughput runs, which have no perf "
        "attached. B/op is JMH's `-prof gc` `gc.alloc.rate.norm`: bytes allocated by the "
        "whole JVM during the measurement iterations (the JDK's total allocated bytes "
        "counter) per operation; the benchmark's own loop allocates nothing, so this is "
        "the JDK's I/O, park/unpark and poller allocation plus the harness.")
    add(f"- **Per-op counts** (syscalls, context switches, CPU time) come from separate "
        f"runs with JMH's `perfnorm` profiler given the software events and syscall "
        f"tracepoints `{cfg['perf_events']}` (the machine has no hardware counters; "
        f"tracepoints count exactly). perfnorm starts `perf stat -I "
        f"{cfg['perfnorm_interval_ms']}` on the forked benchmark JVM (the whole process: "
        f"clients, poller threads, the Selector server(s), JIT and GC threads), keeps "
        f"only the intervals inside the measurement phase (warmup excluded), turns "
        f"their sums into a rate per second and divides it by JMH's own rate of "
        f"operations in the measurement iterations. The window is aligned on the JVM "
        f"start, so it is shifted by the JVM start-up time (a fraction of a second) "
        f"into the end of the warmup, which runs the same workload; perf's counting "
        f"adds a cost to every syscall, which is why throughput is taken from the "
        f"runs without it. perfnorm truncates `task-clock` (ms) to whole ms per "
        f"interval.")
    add("- Counts are for the whole round trip, both sides: the server's `read`, `write` "
        "and `epoll_wait` are included.")
    add("")

    # ------------------------------------------------------------ tables
    add("## Results")
    add("")
    count_cols = [(ev, title, scale, dec) for ev, title, scale, dec in COUNT_METRICS
                  if ev in events]
    for transport in transports:
        for mode in modes:
            for par in pars:
                add(f"### transport={transport}, pollerMode={mode}, parallelism={par}")
                add("")
                head = (["readSize", "variant", "ops/s", "JMH error"]
                        + [c[1] for c in count_cols] + ["B/op"])
                add("| " + " | ".join(head) + " |")
                add("|" + "|".join(["---:"] * len(head)) + "|")
                for size in sizes:
                    for variant in VARIANTS:
                        key = (transport, mode, par, size, variant)
                        err = st(key, "err_rel")
                        cells = [str(size), variant, fmt_stat(st(key, "ops"), 0),
                                 ("±" + fmt_num(err[0], 1) + "%") if err else "n/a"]
                        for ev, _, scale, dec in count_cols:
                            cells.append(fmt_stat(st(key, ev, scale), dec))
                        cells.append(fmt_stat(st(key, "alloc"), 0))
                        add("| " + " | ".join(cells) + " |")
                add("")
                add("ET against ONESHOT (change of the medians):")
                add("")
                add("| readSize | ops/s | epoll_ctl/op | syscalls/op | CPU µs/op | ctx switches/op |")
                add("|---:|---:|---:|---:|---:|---:|")
                for size in sizes:
                    a = lambda m, s=1.0: st((transport, mode, par, size, "ONESHOT"), m, s)
                    b = lambda m, s=1.0: st((transport, mode, par, size, "ET"), m, s)

                    def arrow(m, dec, scale=1.0):
                        x, y = a(m, scale), b(m, scale)
                        if x is None or y is None:
                            return "n/a"
                        return f"{fmt_num(x[0], dec)} → {fmt_num(y[0], dec)}"
                    add(f"| {size} | {fmt_change(a('ops'), b('ops'))} "
                        f"| {arrow('syscalls:sys_enter_epoll_ctl', 3)} "
                        f"| {arrow('raw_syscalls:sys_enter', 3)} "
                        f"| {arrow('task-clock', 2, 1000.0)} "
                        f"| {arrow('context-switches', 3)} |")
                add("")

    # ------------------------------------------------------------ plots
    plots = []
    plot_metrics = [("ops", "ops/s", 1.0, "ops"),
                    ("raw_syscalls:sys_enter", "syscalls per op", 1.0, "syscalls"),
                    ("syscalls:sys_enter_epoll_ctl", "epoll_ctl per op", 1.0, "epoll-ctl")]
    for transport in transports:
        for mode in modes:
            for metric, ylabel, scale, tag in plot_metrics:
                # vs readSize: one series per (variant, parallelism)
                series = []
                for pi, par in enumerate(pars):
                    for variant in VARIANTS:
                        series.append((f"{variant}, parallelism {par}",
                                       PALETTE[pi % len(PALETTE)], variant == "ONESHOT",
                                       [st((transport, mode, par, s, variant), metric, scale)
                                        for s in sizes]))
                name = f"{tag}-vs-readsize-{transport}-mode{mode}.svg"
                svg_chart(os.path.join(raw, name),
                          f"{ylabel}, pollerMode={mode}, {transport}",
                          "readSize (bytes)", ylabel, [str(s) for s in sizes], series)
                plots.append((transport, mode, f"{ylabel} vs readSize", name))
                # vs parallelism: one series per (variant, readSize)
                series = []
                for si, size in enumerate(sizes):
                    for variant in VARIANTS:
                        series.append((f"{variant}, readSize {size}",
                                       PALETTE[si % len(PALETTE)], variant == "ONESHOT",
                                       [st((transport, mode, p, size, variant), metric, scale)
                                        for p in pars]))
                name = f"{tag}-vs-parallelism-{transport}-mode{mode}.svg"
                svg_chart(os.path.join(raw, name),
                          f"{ylabel}, pollerMode={mode}, {transport}",
                          "scheduler parallelism", ylabel, [str(p) for p in pars], series)
                plots.append((transport, mode, f"{ylabel} vs parallelism", name))
    add("## Plots")
    add("")
    add("Dashed line, open dot: ONESHOT; solid line, filled dot: ET; dot = median, "
        "bar = min–max over the pairs.")
    add("")
    for transport, mode, what, name in plots:
        add(f"- transport={transport}, pollerMode={mode}: [{what}]({rawname}/{name})")
    add("")
    for transport, mode, what, name in plots:
        if what.startswith("ops/s") or what.startswith("syscalls"):
            add(f"![{what}, pollerMode={mode}, {transport}]({rawname}/{name})")
            add("")

    # ------------------------------------------------------------ profiles
    prof_path = os.path.join(raw, "profiles.tsv")
    if os.path.exists(prof_path):
        profs = read_tsv(prof_path)
        add("## CPU profiles")
        add("")
        add("async-profiler through JMH's `-prof async` (sampling only during the "
            "measurement iterations), one run per variant. Share = samples whose stack "
            "has a frame matching the pattern / all samples of the process. epoll_ctl "
            "path: a frame matching `epoll_ctl|EPoll[._]ctl` (Java `sun.nio.ch.EPoll.ctl`, "
            "its native method, libc and kernel). Poller loops: `sun.nio.ch.Poller*."
            "pollerLoop`, `sun.nio.ch.Poller*.subPollerLoop` or `sun.nio.ch.EPollPoller.poll` "
            "(the two sets overlap: sub-pollers re-arm with the master poller through "
            "`epoll_ctl`).")
        add("")
        add("| variant | pollerMode | parallelism | readSize | transport | event | samples "
            "| epoll_ctl path | poller loops | flame graph |")
        add("|---|---:|---:|---:|---|---|---:|---:|---:|---|")
        for p in profs:
            total = ctl = loop = 0
            with open(os.path.join(raw, p["collapsed"])) as f:
                for line in f:
                    line = line.rstrip("\n")
                    if not line:
                        continue
                    stack, _, n = line.rpartition(" ")
                    try:
                        n = int(n)
                    except ValueError:
                        continue
                    frames = stack.split(";")
                    total += n
                    if any(EPOLL_CTL_FRAME.search(fr) for fr in frames):
                        ctl += n
                    if any(POLLER_LOOP_FRAME.search(fr) for fr in frames):
                        loop += n
            share = (lambda x: f"{x / total * 100:.1f}%") if total else (lambda x: "n/a")
            fg = p["flamegraph"]
            link = f"[html]({rawname}/{fg})" if fg else "n/a"
            add(f"| {p['variant']} | {p['mode']} | {p['parallelism']} | {p['readSize']} "
                f"| {p['transport']} | {p['event']} | {total:,} | {share(ctl)} "
                f"| {share(loop)} | {link} |")
        add("")

    with open(out_md, "w") as f:
        f.write("\n".join(md).rstrip("\n") + "\n")


if __name__ == "__main__":
    main()
