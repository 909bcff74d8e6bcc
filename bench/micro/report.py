#!/usr/bin/env python3
"""Page for bench/micro/run.sh (make bench-poller); standard library only.

Usage: report.py RAW_DIR ASSET_DIR OUT_MD ASSET_NAME

RAW_DIR is what run.sh filled (meta.env, config.txt, variants.tsv, runs.tsv,
commands.txt, json/*.json from JMH -rf json, profiles.tsv and profiles/ from
async-profiler). Writes OUT_MD, ASSET_DIR.csv (one row per run and parameter
set) and ASSET_DIR/ (SVG plots, gzipped collapsed CPU profiles); the page
links them as ASSET_NAME/... and ASSET_NAME.csv. Every number comes from RAW_DIR.
"""

import gzip
import json
import math
import os
import re
import shutil
import sys
from collections import defaultdict

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import report as R  # noqa: E402

# perf events (perfnorm secondary metrics) -> (key, column title, scale)
COUNT_METRICS = [
    ("syscalls:sys_enter_epoll_ctl", "epoll_ctl_per_op", "epoll_ctl/op", 1.0),
    ("syscalls:sys_enter_epoll_wait", "epoll_wait_per_op", "epoll_wait/op", 1.0),
    ("syscalls:sys_enter_read", "read_per_op", "read/op", 1.0),
    ("syscalls:sys_enter_write", "write_per_op", "write/op", 1.0),
    ("raw_syscalls:sys_enter", "syscalls_per_op", "syscalls/op", 1.0),
    ("context-switches", "cs_per_op", "ctx switches/op", 1.0),
    # perf reports task-clock in ms: per op in microseconds
    ("task-clock", "cpu_us_per_op", "CPU µs/op", 1000.0),
]

# the ratio table: (key, title, formatter)
RATIO_METRICS = [("ops", "ops/s", None), ("cpu_us_per_op", "CPU µs/op", None),
                 ("syscalls_per_op", "syscalls/op", None), ("epoll_ctl_per_op", "epoll_ctl/op", None),
                 ("cs_per_op", "ctx switches/op", None), ("alloc", "B/op", None)]

STYLES = ["6,4", False, "2,3", "8,3,2,3"]   # baseline dashed, next solid, ...

EPOLL_CTL_FRAME = re.compile(r"epoll_ctl|EPoll[._]ctl")
POLLER_LOOP_FRAME = re.compile(
    r"^sun/nio/ch/Poller(\$[\w$]+)?\.(pollerLoop|subPollerLoop)(_\[.\])?$"
    r"|^sun/nio/ch/EPollPoller\.poll(_\[.\])?$")



def own_poller_mode(opts):
    """The jdk.pollerMode a variant's own options set (the last one wins), or None."""
    found = re.findall(r"-Djdk\.pollerMode=(\S+)", opts or "")
    return found[-1] if found else None

def die(msg):
    sys.exit("bench/micro/report.py: error: " + msg)


def ints(s):
    return [int(x) for x in s.split(",") if x]


def main():
    if len(sys.argv) != 5:
        die("usage: report.py RAW_DIR ASSET_DIR OUT_MD ASSET_NAME")
    raw, assets, out_md, aname = sys.argv[1:5]
    os.makedirs(assets, exist_ok=True)
    cfg = R.read_kv(os.path.join(raw, "config.txt"))
    meta = R.read_kv(os.path.join(raw, "meta.env"))
    with open(os.path.join(raw, "jdk-version.txt"), encoding="utf-8") as f:
        jdk_version = f.read().rstrip()
    variants = R.read_table(os.path.join(raw, "variants.tsv"), "\t")
    names = [v["name"] for v in variants]
    base = names[0]
    runs = R.read_table(os.path.join(raw, "runs.tsv"), "\t")
    events = cfg["perf_events"].split(",")
    modes, pars, sizes = ints(cfg["modes"]), ints(cfg["parallelism"]), ints(cfg["sizes"])
    transports = cfg["transports"].split(",")
    busy = R.busy(meta)

    # rec[(transport, mode, par, size)][(variant, pair)] -> merged time + count values
    rec = defaultdict(dict)
    for run in runs:
        if run["kind"] not in ("time", "count"):
            continue
        with open(os.path.join(raw, run["json"]), encoding="utf-8") as f:
            results = json.load(f)
        if not results:
            die(f"{run['json']} has no results")
        for res in results:
            p = res["params"]
            cell = (p["transport"], int(run["mode"]), int(run["parallelism"]), int(p["readSize"]))
            r = rec[cell].setdefault((run["variant"], run["pair"]), {
                "variant": run["variant"], "pair": run["pair"], "mode": run["mode"],
                "parallelism": run["parallelism"], "transport": p["transport"], "readSize": p["readSize"],
                "machine_busy": meta.get("machine_busy", "0")})
            pm = res["primaryMetric"]
            sec = res.get("secondaryMetrics", {})
            if run["kind"] == "time":
                r["ops"] = pm["score"]
                err = pm["scoreError"]
                if isinstance(err, (int, float)) and not math.isnan(err) and pm["score"]:
                    r["err_rel"] = err / pm["score"] * 100
                alloc = sec.get("gc.alloc.rate.norm")
                if alloc is None:
                    die(f"{run['json']}: no gc.alloc.rate.norm (was -prof gc used?)")
                r["alloc"] = alloc["score"]
                r["load1_before_time"], r["psi10_before_time"] = run["load1_before"], run["psi10_before"]
            else:
                r["ops_under_perf"] = pm["score"]
                for ev, key, _, scale in COUNT_METRICS:
                    if ev not in events:
                        continue
                    m = sec.get(ev)
                    if m is None:
                        die(f"{run['json']}: perfnorm did not report '{ev}' (JMH drops events perf does not support)")
                    r[key] = m["score"] * scale
                r["load1_before_count"], r["psi10_before_count"] = run["load1_before"], run["psi10_before"]

    fields = (["transport", "mode", "parallelism", "readSize", "pair", "variant", "ops", "err_rel", "alloc",
               "ops_under_perf"] + [m[1] for m in COUNT_METRICS]
              + ["load1_before_time", "psi10_before_time", "load1_before_count", "psi10_before_count",
                 "machine_busy"])
    R.write_csv(assets + ".csv", [r for cell in sorted(rec) for r in rec[cell].values()], fields)

    def cell_runs(transport, mode, par, size):
        return list(rec.get((transport, mode, par, size), {}).values())

    def st(transport, mode, par, size, variant, key):
        return R.stats([r.get(key) for r in cell_runs(transport, mode, par, size) if r["variant"] == variant])

    npairs = min((R.pair_count(list(c.values()), names) for c in rec.values()), default=0)
    L = R.header_lines(meta, "Virtual-thread read poller micro benchmark: " + " vs ".join(names),
                       "bench/micro/run.sh", npairs,
                       ", ".join(f"{v['name']} = `{v['opts']}`" for v in variants),
                       [f"perf: {meta.get('perf', '?')}", f"JDK image: `{cfg['jdk']}`"])
    L += ["`java -version`:", "", "```", jdk_version, "```", ""]
    if cfg.get("bench_poller_opts"):
        L += [f"With `BENCH_POLLER_OPTS={cfg['bench_poller_opts']}`.", ""]
    first = {}
    with open(os.path.join(raw, "commands.txt"), encoding="utf-8") as f:
        for line in f:
            rid, cmd = line.rstrip("\n").split("\t", 1)
            first.setdefault(rid.split("-", 1)[0], cmd.strip())
    L += ["Each JMH run is one `java -jar benchmarks.jar` invocation; the first of each kind was:", ""]
    for kind, what in (("time", "throughput and allocation"), ("count", "syscall counts"),
                       ("profile", "CPU profile")):
        if kind in first:
            L += [f"- {what}:", "", "  ```", "  " + first[kind], "  ```", ""]

    L += ["## Method", ""]
    L.append(f"- Benchmark: `org.openjdk.bench.java.net.SocketReadPollerBench.roundTrip`: "
             f"{cfg['threads']} JMH threads run as virtual threads (`-Djmh.executor=VIRTUAL`, "
             f"checked by the benchmark), each owning one loopback TCP connection; an operation "
             f"writes a 1-byte request and reads the `readSize`-byte response fully. Peers: "
             f"{cfg['servers']} one-thread `Selector` server(s) in the same JVM (platform threads, "
             f"blocking `select(timeout)`), so only the clients use the virtual-thread poller.")
    L.append(f"- Variants: " + ", ".join(f"{v['name']} = `{v['opts']}`" for v in variants)
             + f", each with `-Djdk.pollerMode=M` and `-Djdk.virtualThreadScheduler.parallelism=P`"
             " before the variant's options, so a variant's own `-Djdk.pollerMode` wins (the"
             " section headings then say which mode that variant ran in). "
             f"Extra JVM options: `{cfg['jvm_args'] or 'none'}`.")
    L.append(f"- Alternation: {cfg['pairs']} pair(s) per configuration. Within a pair the variants run "
             f"back to back, first for throughput, then for counts; the pairs are spread over the "
             f"session (pair 1 of every configuration, then pair 2, ...). Each run: `-f {cfg['forks']} "
             f"-wi {cfg['wi']} -w {cfg['w']}s -i {cfg['i']} -r {cfg['r']}s -t {cfg['threads']}`. "
             "The load guard (bench/README.md) checked the machine before every run; each run's "
             "load average and CPU pressure are in the CSV.")
    L.append("- \"JMH error\" is the median over the runs of JMH's own 99.9% confidence half-width, "
             "relative to the score (n/a when JMH could not compute one).")
    L.append("- **ops/s** and **B/op** come from the throughput runs, which have no perf attached. "
             "B/op is JMH's `-prof gc` `gc.alloc.rate.norm`: bytes allocated by the whole JVM per "
             "operation during the measurement iterations.")
    L.append(f"- **Per-op counts** come from separate runs with JMH's `perfnorm` profiler and the "
             f"events `{cfg['perf_events']}` (software events and syscall tracepoints, exact counts). "
             f"perfnorm runs `perf stat -I {cfg['perfnorm_interval_ms']}` on the forked JVM (whole "
             "process, both sides of the round trip), keeps the intervals of the measurement phase "
             "and divides by JMH's rate of operations; it truncates `task-clock` to whole ms per interval.")
    L.append("")

    L += ["## Results", ""]
    L += R.stamp_lines(meta)
    L.append(R.ratio_note(names))
    L.append("")
    count_cols = [(key, title) for ev, key, title, _ in COUNT_METRICS if ev in events]
    for transport in transports:
        for mode in modes:
            for par in pars:
                own = [f"{v['name']} ran in mode {m}" for v in variants
                       if (m := own_poller_mode(v['opts'])) is not None and m != str(mode)]
                L += [f"### transport={transport}, pollerMode={mode}, parallelism={par}"
                      + (f" ({', '.join(own)}: its own option)" if own else ""), ""]
                L += R.stamp_lines(meta)
                head = ["readSize", "variant", "ops/s", "JMH error"] + [c[1] for c in count_cols] + ["B/op"]
                L.append("| " + " | ".join(head) + " |")
                L.append("|" + "|".join(["---:"] * len(head)) + "|")
                for size in sizes:
                    for v in names:
                        err = st(transport, mode, par, size, v, "err_rel")
                        cells = [str(size), v, R.fmt_stat(st(transport, mode, par, size, v, "ops"), R.fixed(0)),
                                 ("±" + R.fixed(1)(err[0]) + "%") if err else "n/a"]
                        cells += [R.fmt_stat(st(transport, mode, par, size, v, k),
                                             R.fixed(2 if k == "cpu_us_per_op" else 3)) for k, _ in count_cols]
                        cells.append(R.fmt_stat(st(transport, mode, par, size, v, "alloc"), R.fixed(0)))
                        L.append("| " + " | ".join(cells) + " |")
                L.append("")
                L.append(f"Per-pair ratio to {base}, median [min–max] over the pairs:")
                L.append("")
                L.append("| readSize | variant | " + " | ".join(m[1] for m in RATIO_METRICS) + " |")
                L.append("|---:|---|" + "---:|" * len(RATIO_METRICS))
                for size in sizes:
                    cr = cell_runs(transport, mode, par, size)
                    for v in names[1:]:
                        L.append(f"| {size} | {v} ÷ {base} | " + " | ".join(
                            R.fmt_ratio(R.stats(R.paired_ratios(cr, k, v, base))) for k, _, _ in RATIO_METRICS)
                            + " |")
                L.append("")

    # plots
    plots = []
    plot_metrics = [("ops", "ops/s", "ops"), ("syscalls_per_op", "syscalls per op", "syscalls"),
                    ("epoll_ctl_per_op", "epoll_ctl per op", "epoll-ctl")]
    for transport in transports:
        for mode in modes:
            for metric, ylabel, tag in plot_metrics:
                series = []
                for pi, par in enumerate(pars):
                    for vi, v in enumerate(names):
                        series.append((f"{v}, parallelism {par}", R.PALETTE[pi % len(R.PALETTE)],
                                       STYLES[vi % len(STYLES)],
                                       [st(transport, mode, par, s, v, metric) for s in sizes]))
                name = f"{tag}-vs-readsize-{transport}-mode{mode}.svg"
                R.svg_chart(os.path.join(assets, name), f"{ylabel}, pollerMode={mode}, {transport}",
                            "readSize (bytes)", ylabel, [str(s) for s in sizes], series, busy)
                plots.append((mode, transport, f"{ylabel} vs readSize", name))
                if len(pars) > 1:
                    series = []
                    for si, size in enumerate(sizes):
                        for vi, v in enumerate(names):
                            series.append((f"{v}, readSize {size}", R.PALETTE[si % len(R.PALETTE)],
                                           STYLES[vi % len(STYLES)],
                                           [st(transport, mode, p, size, v, metric) for p in pars]))
                    name = f"{tag}-vs-parallelism-{transport}-mode{mode}.svg"
                    R.svg_chart(os.path.join(assets, name), f"{ylabel}, pollerMode={mode}, {transport}",
                                "scheduler parallelism", ylabel, [str(p) for p in pars], series, busy)
                    plots.append((mode, transport, f"{ylabel} vs parallelism", name))
    L += ["## Plots", ""]
    L.append(f"Line style per variant ({', '.join(names)}: dashed, solid, dotted, dash-dot); "
             "dot = median, bar = min–max over the pairs.")
    L.append("")
    for mode, transport, what, name in plots:
        L.append(f"- transport={transport}, pollerMode={mode}: [{what}]({aname}/{name})")
    L.append("")
    for mode, transport, what, name in plots:
        if what.startswith(("ops/s", "syscalls")):
            L += [f"![{what}, pollerMode={mode}, {transport}]({aname}/{name})", ""]

    # CPU profiles: shares from the collapsed stacks; the page keeps them gzipped
    prof_path = os.path.join(raw, "profiles.tsv")
    if os.path.exists(prof_path):
        L += ["## CPU profiles", ""]
        L += R.stamp_lines(meta)
        L.append("async-profiler through JMH's `-prof async` (measurement iterations only), one run "
                 "per variant. Share = samples whose stack has a frame matching the pattern / all "
                 "samples of the process. epoll_ctl path: a frame matching `epoll_ctl|EPoll[._]ctl`. "
                 "Poller loops: `sun.nio.ch.Poller*.pollerLoop`, `*.subPollerLoop` or "
                 "`sun.nio.ch.EPollPoller.poll` (the two sets overlap). The collapsed stacks (gzip; "
                 "`zcat F | flamegraph.pl` makes a flame graph) of one run per variant are linked; "
                 "the other profiles and the HTML flame graphs stay with the raw runs.")
        L.append("")
        L.append("| variant | pollerMode | parallelism | readSize | transport | event | samples "
                 "| epoll_ctl path | poller loops | collapsed stacks |")
        L.append("|---|---:|---:|---:|---|---|---:|---:|---:|---|")
        os.makedirs(os.path.join(assets, "profiles"), exist_ok=True)
        kept = set()
        for p in R.read_table(prof_path, "\t"):
            total = ctl = loop = 0
            src = os.path.join(raw, p["collapsed"])
            with open(src, encoding="utf-8", errors="replace") as f:
                for line in f:
                    stack, _, n = line.rstrip("\n").rpartition(" ")
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
            # the page keeps one profile per variant (the first mode's); the rest stay raw
            gz = f"profiles/{p['variant']}-m{p['mode']}-p{p['parallelism']}.collapsed.gz"
            keep = p["variant"] not in kept
            if keep:
                kept.add(p["variant"])
                with open(src, "rb") as fi, gzip.GzipFile(os.path.join(assets, gz), "wb", mtime=0) as fo:
                    shutil.copyfileobj(fi, fo)

            def share(x):
                return f"{x / total * 100:.1f}%" if total else "n/a"
            L.append(f"| {p['variant']} | {p['mode']} | {p['parallelism']} | {p['readSize']} "
                     f"| {p['transport']} | {p['event']} | {total:,} | {share(ctl)} | {share(loop)} "
                     f"| {f'[{os.path.basename(gz)}]({aname}/{gz})' if keep else 'raw run only'} |")
        L.append("")
    L += [f"Every run and parameter set: [`{aname}.csv`]({aname}.csv).", ""]
    R.write_page(out_md, L)


if __name__ == "__main__":
    try:
        main()
    except (R.DataError, OSError, KeyError, ValueError) as e:
        die(str(e))
