#!/usr/bin/env python3
"""ET-JDK end-to-end benchmark: parse raw run directories, print summaries, write the report.

  report.py summary RUN_DIR        one line about one run (used by run.sh after each run)
  report.py render RAW_DIR OUT.md  tables + latency plots for all runs under RAW_DIR

Only the standard library, plus matplotlib for the plots. Every number written
comes from the files under RAW_DIR.
"""

import csv
import json
import math
import os
import statistics
import sys

VARIANT_NAME = {"oneshot": "ONESHOT", "et": "ET"}
PERF_KEYS = {
    "task-clock": "task_clock_ms",
    "context-switches": "cs",
    "syscalls:sys_enter_epoll_ctl": "epoll_ctl",
    "syscalls:sys_enter_epoll_wait": "epoll_wait",
    "syscalls:sys_enter_read": "read",
    "syscalls:sys_enter_write": "write",
    "raw_syscalls:sys_enter": "syscalls",
}


class DataError(Exception):
    pass


def read_env(path):
    d = {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.rstrip("\n")
            if "=" in line:
                k, v = line.split("=", 1)
                d[k] = v
    return d


def read_perf(path):
    """perf stat -x, output: value,unit,event,run_time,pct,... ('#' lines are comments)."""
    out = {}
    with open(path, encoding="utf-8") as f:
        for row in csv.reader(f):
            if not row or row[0].startswith("#") or len(row) < 3:
                continue
            value, event = row[0], row[2]
            # perf may append modifiers, e.g. "task-clock:u"
            base = event.split(":u")[0] if event.endswith(":u") else event
            if base not in PERF_KEYS:
                continue
            if value.startswith("<"):
                raise DataError(f"{path}: event {event} was {value}")
            out[PERF_KEYS[base]] = float(value)
    missing = [k for k in PERF_KEYS.values() if k not in out]
    if missing:
        raise DataError(f"{path}: events missing from perf output: {', '.join(missing)}")
    return out


def read_load(path):
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.startswith("RESULT_JSON "):
                return json.loads(line[len("RESULT_JSON "):])
            if line.startswith("RESULT_ERROR "):
                raise DataError(f"{path}: load generator failed: {line.strip()}")
    raise DataError(f"{path}: no RESULT_JSON line")


def read_hgrm(path):
    """Returns [(percentile 0..1, value ms)] from an HdrHistogram percentile distribution."""
    pts = []
    if not os.path.exists(path):
        return pts
    with open(path, encoding="utf-8") as f:
        for line in f:
            parts = line.split()
            if len(parts) < 3 or line.lstrip().startswith(("#", "Value")):
                continue
            try:
                pts.append((float(parts[1]), float(parts[0])))
            except ValueError:
                continue
    return pts


def load_run(d, cfg=None):
    if cfg is None:
        cfg = read_env(os.path.join(os.path.dirname(d.rstrip("/")), "config.env"))
    env = read_env(os.path.join(d, "run.env"))
    perf = read_perf(os.path.join(d, "perf.csv"))
    load = read_load(os.path.join(d, "load.log"))
    reqs = int(env["served_after"]) - int(env["served_before"])
    window = float(env["perf_t1"]) - float(env["perf_t0"])
    if reqs <= 0:
        raise DataError(f"{d}: the server served no request in the perf window")
    tck = float(cfg.get("clk_tck", "100"))
    r = {
        "dir": d,
        "variant": env["variant"],
        "rate": float(env["rate"]),
        "pair": int(env["pair"]),
        "reqs": reqs,
        "window_s": window,
        "server_rate": reqs / window,
        "cpu_us_per_req": perf["task_clock_ms"] * 1000.0 / reqs,
        "server_util": perf["task_clock_ms"] / 1000.0 / window,
        "load_util": (int(env["load_ticks"]) + int(env["backend_ticks"])) / tck / window,
        "time_wait_after": int(env.get("time_wait_after", "0") or 0),
        "cpu_pressure": int(env.get("psi_cpu_us", "0") or 0) / 1e6 / window,
    }
    for k in ("cs", "epoll_ctl", "epoll_wait", "read", "write", "syscalls"):
        r[k + "_per_req"] = perf[k] / reqs
    r["perf"] = perf
    for k in ("achieved_rate", "p50_ms", "p90_ms", "p99_ms", "p999_ms", "max_ms", "mean_ms",
              "errors", "timeouts", "incomplete", "scheduled", "ok", "non200", "send_lag_p99_ms",
              "send_lag_max_ms", "connect_ms", "reconnects"):
        v = load.get(k)
        r[k] = float("nan") if v is None else float(v)
    r["hgrm"] = read_hgrm(os.path.join(d, "latency.hgrm"))
    return r


def fmt(x):
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "n/a"
    a = abs(x)
    if a == 0:
        return "0"
    if a >= 1000:
        return f"{x:,.0f}"
    if a >= 100:
        return f"{x:.0f}"
    if a >= 10:
        return f"{x:.1f}"
    if a >= 1:
        return f"{x:.2f}"
    if a >= 0.01:
        return f"{x:.3f}"
    return f"{x:.2g}"


def fmt_int(x):
    if isinstance(x, float) and math.isnan(x):
        return "n/a"
    return f"{int(round(x)):,}"


def stat(values, f=fmt):
    vals = [v for v in values if not (isinstance(v, float) and math.isnan(v))]
    if not vals:
        return "n/a"
    med = statistics.median(vals)
    if len(vals) == 1 or min(vals) == max(vals):
        return f(med)
    return f"{f(med)} [{f(min(vals))}–{f(max(vals))}]"


def summary(d):
    r = load_run(d)
    print(f"  {VARIANT_NAME[r['variant']]:7s} rate {r['rate']:.0f}: achieved {r['achieved_rate']:.0f} req/s, "
          f"p50 {fmt(r['p50_ms'])} p99 {fmt(r['p99_ms'])} p99.9 {fmt(r['p999_ms'])} max {fmt(r['max_ms'])} ms, "
          f"errors {r['errors']:.0f} timeouts {r['timeouts']:.0f} incomplete {r['incomplete']:.0f}; "
          f"server {r['cpu_us_per_req']:.1f} us/req, epoll_ctl {r['epoll_ctl_per_req']:.3f}/req, "
          f"syscalls {r['syscalls_per_req']:.2f}/req, server CPU {r['server_util']:.2f}, load side CPU {r['load_util']:.2f}, "
          f"CPU pressure {100 * r['cpu_pressure']:.0f}%")


# ---------------------------------------------------------------------------

def plot_rate(rate, runs, path, title):
    try:
        import matplotlib
    except ImportError:
        raise DataError("matplotlib is not installed for this python; run.sh installs it into "
                        "~/.cache/et-jdk/e2e-venv (or set E2E_PYTHON to a python that has it)")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import FixedLocator, FixedFormatter

    fig, ax = plt.subplots(figsize=(8, 4.8), dpi=110)
    colors = {"oneshot": "tab:blue", "et": "tab:orange"}
    styles = ["-", "--", ":", "-."]
    allv = []
    maxx = 10
    for r in sorted(runs, key=lambda r: (r["variant"] != "oneshot", r["pair"])):
        pts = [(p, v) for p, v in r["hgrm"] if p < 1.0]
        if not pts:
            continue
        xs = [1.0 / (1.0 - p) for p, _ in pts]
        ys = [v for _, v in pts]
        maxx = max(maxx, max(xs))
        allv += ys
        ax.plot(xs, ys, color=colors.get(r["variant"], "gray"), linestyle=styles[(r["pair"] - 1) % len(styles)],
                linewidth=1.4, label=f"{VARIANT_NAME[r['variant']]} pair {r['pair']}")
    ax.set_xscale("log")
    ticks = [1, 2, 10, 100, 1000, 10000, 100000, 1000000]
    labels = ["0%", "50%", "90%", "99%", "99.9%", "99.99%", "99.999%", "99.9999%"]
    keep = [i for i, t in enumerate(ticks) if t <= maxx * 1.5]
    ax.xaxis.set_major_locator(FixedLocator([ticks[i] for i in keep]))
    ax.xaxis.set_major_formatter(FixedFormatter([labels[i] for i in keep]))
    ax.xaxis.set_minor_locator(FixedLocator([]))
    if allv and min(allv) > 0 and max(allv) / min(allv) > 20:
        from matplotlib.ticker import LogLocator, FuncFormatter
        ax.set_yscale("log")
        ax.yaxis.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
        ax.yaxis.set_minor_locator(FixedLocator([]))
        ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
    ax.set_xlabel("percentile")
    ax.set_ylabel("latency from intended send time (ms)")
    ax.set_title(title, fontsize=10)
    ax.grid(True, which="major", alpha=0.3)
    if allv:
        ax.legend(fontsize=8, loc="upper left")
    else:
        ax.text(0.5, 0.5, "no measured responses", transform=ax.transAxes, ha="center")
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)


def render(raw, out):
    cfg = read_env(os.path.join(raw, "config.env"))
    with open(os.path.join(raw, "runs.list"), encoding="utf-8") as f:
        run_dirs = [os.path.join(raw, n.strip()) for n in f if n.strip()]
    if not run_dirs:
        raise DataError(f"no completed runs under {raw}")
    runs = [load_run(d, cfg) for d in run_dirs]

    out_dir = os.path.dirname(os.path.abspath(out))
    stem = os.path.splitext(os.path.basename(out))[0]
    asset_dir = os.path.join(out_dir, stem)
    os.makedirs(asset_dir, exist_ok=True)

    rates = []
    for r in runs:
        if r["rate"] not in rates:
            rates.append(r["rate"])
    variants = cfg["variants"].split()
    pairs = int(cfg["pairs"])

    def rate_label(rate):
        if cfg.get("rate_kind") == "standard":
            if rate == float(cfg["sustain_rate"]):
                return "sustainable rate"
            if rate == float(cfg["saturate_rate"]):
                return "saturating rate"
        return "fixed rate"

    with open(os.path.join(raw, "jdk-version.txt"), encoding="utf-8") as f:
        jdk_version = f.read().strip()
    with open(os.path.join(raw, "load-jdk-version.txt"), encoding="utf-8") as f:
        load_version = f.read().strip()

    L = []
    w = L.append
    w("# End-to-end benchmark: ONESHOT vs edge-triggered (ET) read pollers")
    w("")
    w(f"Generated by `bench/e2e/run.sh` ({cfg['started_utc']} – {cfg.get('finished_utc', '?')} UTC). "
      "Every number in this file comes from that run; the raw files (logs, `perf stat` CSV, "
      f"HdrHistogram percentile distributions) were in `{raw}`, and the per-run values are also in "
      f"[`{stem}/runs.csv`]({stem}/runs.csv).")
    if cfg.get("quick") == "1":
        w("")
        w("**This is a `--quick` smoke run (small settings): it checks the plumbing, its numbers are not a result.**")
    w("")
    w("## Command")
    w("")
    w("```")
    w(cfg["cmd"])
    w("```")
    if cfg.get("via_make") == "yes":
        w("")
        w("(run by `make bench-e2e`)")
    w("")
    w("## Setup")
    w("")
    w(f"- **Server** (JDK under test, `{cfg['jdk']}`): thread-per-connection on virtual threads, blocking "
      "`java.net.ServerSocket`/`Socket` streams, HTTP/1.1 keep-alive; per request it borrows a blocking "
      f"`Socket` from a pool of {cfg['pool']} pre-opened connections to the backend, sends 16 bytes, waits for "
      "64 bytes, and answers `200` with a 13-byte body and `Content-Length`. "
      f"JVM options: `{cfg['server_opts']} -Djdk.pollerEdgeTriggered=false|true`. "
      "`-Djdk.pollerMode` is not set, so the JDK default applies (2: virtual-thread pollers on Linux). "
      f"Pinned with `taskset -c {cfg['server_cpu']}`, so the JVM sees 1 CPU and the virtual-thread scheduler "
      "has parallelism 1.")
    w(f"- **Variants**: ONESHOT = `-Djdk.pollerEdgeTriggered=false` (upstream behaviour), "
      f"ET = `-Djdk.pollerEdgeTriggered=true`; run alternately, order per rate: "
      f"{' '.join(VARIANT_NAME[v] for v in variants)} × {pairs} pair(s). Each run starts fresh JVMs.")
    w(f"- **Backend** (`{cfg['load_jdk']}`): one NIO selector thread; answers each request after "
      f"{cfg['think_ms']} ms think time (+0–1 ms timer granularity). JVM options: `{cfg['backend_opts']}`.")
    w(f"- **Load generator** (`{cfg['load_jdk']}`): open model, {int(cfg['connections']):,} keep-alive "
      "connections, fixed arrival rate spread evenly over the connections; latency is measured from each "
      "request's *intended* send time (no coordinated omission: a request that must wait for its connection "
      "carries that wait). One NIO selector thread (no virtual threads, so the poller under test is not on the "
      f"load side). JVM options: `{cfg['load_opts']}`. HdrHistogram 2.2.2.")
    w(f"- **CPUs**: server on CPU {cfg['server_cpu']}; backend and load generator share CPU {cfg['load_cpu']} "
      f"(`taskset`); the machine has {cfg['nproc']}.")
    w(f"- **Timeline per run**: open all connections, {cfg['warmup']} s warmup (not measured), {cfg['duration']} s "
      f"measured window (requests whose intended send time falls in it), then up to {cfg['drain']} s for them "
      "to finish (the rest count as *incomplete*). A request unanswered "
      f"{cfg['timeout']} s after it was sent is a *timeout*.")
    w(f"- **Server cost**: the server JVM runs under `perf stat -x, -e {cfg['perf_events']} -D -1 "
      "--control fifo:…` (counters off); they are switched on for the measured window minus 0.5 s at each end "
      "and the counts are divided by the requests the server completed in exactly that span (its counter is "
      "read from an admin port just before enabling and just after disabling). Whole process, all JVM threads, "
      "including threads started inside the window (which `perf stat -p <pid>` would miss).")
    w("")
    w("## Machine")
    w("")
    w(f"- nproc: {cfg['nproc']}; CPU: {cfg['cpu_model']}; memory: {cfg['mem_total']}")
    w(f"- kernel: {cfg['kernel']}; {cfg['perf_version']}")
    w(f"- load average (1/5/15 min) at start: {cfg['loadavg_start']}, at end: {cfg.get('loadavg_end', '?')}; "
      f"scheduler autogroup: {cfg['autogroup']}")
    w(f"- ephemeral ports {cfg['port_range']}, tcp_tw_reuse {cfg['tcp_tw_reuse']}, somaxconn {cfg['somaxconn']}, "
      f"open files {cfg['ulimit_n']}")
    w(f"- repository: {cfg['git']}")
    w("")
    w("JDK under test (`java -version`):")
    w("")
    w("```")
    w(jdk_version)
    w("```")
    w("")
    w("Load generator and backend JDK:")
    w("")
    w("```")
    w(load_version)
    w("```")
    w("")
    w("## Results")
    w("")
    if pairs > 1:
        w(f"Cells are median [min–max] over the {pairs} runs of each variant.")
    else:
        w("One run per variant (pairs = 1): single values, no spread.")
    w("")

    notes = []
    for rate in rates:
        rr = [r for r in runs if r["rate"] == rate]
        label = rate_label(rate)
        w(f"### {rate:,.0f} req/s target ({label})")
        w("")
        w("Throughput and latency (load generator):")
        w("")
        w("| variant | achieved req/s | p50 ms | p90 ms | p99 ms | p99.9 ms | max ms | errors | timeouts | incomplete | generator send lag p99 ms | load-side CPU (cores) |")
        w("|---|---|---|---|---|---|---|---|---|---|---|---|")
        for v in variants:
            vr = [r for r in rr if r["variant"] == v]
            if not vr:
                continue
            g = lambda k: [r[k] for r in vr]
            w(f"| {VARIANT_NAME[v]} | {stat(g('achieved_rate'))} | {stat(g('p50_ms'))} | {stat(g('p90_ms'))} | "
              f"{stat(g('p99_ms'))} | {stat(g('p999_ms'))} | {stat(g('max_ms'))} | {stat(g('errors'), fmt_int)} | "
              f"{stat(g('timeouts'), fmt_int)} | {stat(g('incomplete'), fmt_int)} | {stat(g('send_lag_p99_ms'))} | "
              f"{stat(g('load_util'))} |")
        w("")
        w("Server cost per request (`perf stat`, whole server process):")
        w("")
        cols = [("cpu_us_per_req", "CPU µs/req"), ("server_util", "server CPU (cores)"),
                ("server_rate", "server req/s in perf window"),
                ("cs_per_req", "context switches/req"), ("epoll_ctl_per_req", "epoll_ctl/req"),
                ("epoll_wait_per_req", "epoll_wait/req"), ("read_per_req", "read/req"),
                ("write_per_req", "write/req"), ("syscalls_per_req", "all syscalls/req")]
        w("| variant | " + " | ".join(c[1] for c in cols) + " |")
        w("|---|" + "---|" * len(cols))
        for v in variants:
            vr = [r for r in rr if r["variant"] == v]
            if not vr:
                continue
            w(f"| {VARIANT_NAME[v]} | " + " | ".join(stat([r[k] for r in vr]) for k, _ in cols) + " |")
        # paired ratios ET / ONESHOT
        if "oneshot" in variants and "et" in variants:
            ratios = {k: [] for k, _ in cols}
            for p in range(1, pairs + 1):
                a = [r for r in rr if r["variant"] == "oneshot" and r["pair"] == p]
                b = [r for r in rr if r["variant"] == "et" and r["pair"] == p]
                if a and b:
                    for k, _ in cols:
                        ratios[k].append(b[0][k] / a[0][k] if a[0][k] else float("nan"))
            if any(ratios.values()):
                w("| ET ÷ ONESHOT (per pair) | " + " | ".join(stat(ratios[k]) for k, _ in cols) + " |")
        w("")
        png = f"latency-{int(rate)}.png"
        plot_rate(rate, rr, os.path.join(asset_dir, png),
                  f"{rate:,.0f} req/s target ({label}), {int(cfg['connections']):,} connections, "
                  f"{cfg['duration']} s measured")
        w(f"![latency percentiles at {rate:,.0f} req/s]({stem}/{png})")
        w("")

        # automatic observations, from this run's numbers only
        o = [r for r in rr if r["variant"] == "oneshot"]
        e = [r for r in rr if r["variant"] == "et"]
        if o and e:
            mo = statistics.median(r["epoll_ctl_per_req"] for r in o)
            me = statistics.median(r["epoll_ctl_per_req"] for r in e)
            if mo > 0 and me > 0.5 * mo:
                notes.append(f"At {rate:,.0f} req/s ET made {fmt(me)} epoll_ctl calls per request against "
                             f"ONESHOT's {fmt(mo)}: the flag had no visible effect, so the JDK under test "
                             "probably does not implement `-Djdk.pollerEdgeTriggered` (an upstream JDK ignores it).")
        for r in rr:
            bad = [f"{int(r[k])} {k}" for k in ("errors", "timeouts") if r[k] > 0]
            if bad:
                notes.append(f"{VARIANT_NAME[r['variant']]} pair {r['pair']} at {rate:,.0f} req/s: " + ", ".join(bad) + ".")
        lagging = [r for r in rr if r["achieved_rate"] < 0.9 * r["server_rate"]]
        if lagging:
            notes.append(f"At {rate:,.0f} req/s, in {len(lagging)} of {len(rr)} runs the load generator received "
                         "under 90 % of the responses per second that the server completed in the perf window: "
                         "the load side fell behind (see load-side CPU and CPU pressure), so those runs' latency "
                         "and achieved rate describe the load side more than the server.")
        if label == "sustainable rate":
            short = [r for r in rr if r["achieved_rate"] < 0.98 * rate or r["incomplete"] > 0]
            if short:
                notes.append(f"The 'sustainable' rate {rate:,.0f} req/s was not fully sustained in "
                             f"{len(short)} of {len(rr)} runs (achieved below 98 % of target, or incomplete "
                             "requests): lower `--sustain-rate`, or the machine was busy.")
        if label == "saturating rate":
            su = statistics.median(r["server_util"] for r in rr)
            lu = statistics.median(r["load_util"] for r in rr)
            notes.append(f"At the saturating rate the server used a median {fmt(su)} cores of its CPU and the "
                         f"load generator + backend {fmt(lu)} cores of theirs. Throughput here is bounded by "
                         "whichever side is nearer 1.0 (if neither is, something else limited it, e.g. other work "
                         "on the machine: see CPU pressure); latency grows with the queue for the whole run (open "
                         "model), so its percentiles describe the overload, not the server's service time.")
    busy = [r for r in runs if r["cpu_pressure"] > 0.10]
    if busy:
        notes.append(f"In {len(busy)} of {len(runs)} runs some task waited for a CPU more than 10 % of the perf window "
                     f"(Linux PSI `/proc/pressure/cpu`, up to {100 * max(r['cpu_pressure'] for r in busy):.0f} %): "
                     "the benchmark's own processes (load generator and backend share a CPU) or other work on the machine "
                     "competed for the cores, which inflates latency and, less so, CPU per request.")
    if notes:
        w("## Observations (computed from this run)")
        w("")
        for n in notes:
            w(f"- {n}")
        w("")

    w("## Columns")
    w("")
    w("- *achieved req/s*: responses received by the load generator inside the measured window ÷ its length.")
    w("- *p50 … max*: latency of the measured requests from their intended send time (HdrHistogram, 3 "
      "significant digits). *incomplete*: measured requests without a response by the end of the drain time.")
    w("- *generator send lag*: actual − intended send time (includes waiting for a busy connection); large "
      "values at the sustainable rate mean the load side could not keep up.")
    w("- *load-side CPU*: CPU time of the load generator + backend processes during the perf window ÷ its "
      "length (1.0 = their whole CPU).")
    w("- *server CPU (cores)*: `task-clock` ÷ window length. *…/req*: `perf stat` count ÷ requests completed by "
      "the server in the same window. *all syscalls* is `raw_syscalls:sys_enter`.")
    w("- *CPU pressure*: share of the perf window in which some runnable task, anywhere on the machine, waited "
      "for a CPU (Linux PSI `some`). It counts the benchmark's own processes too (load generator and backend share "
      "a CPU), so it is low but not 0 on an otherwise idle machine at a sustainable rate.")
    w("- *ET ÷ ONESHOT (per pair)*: ratio within each A/B pair, then median [min–max] over pairs.")
    w("")
    w("## All runs, in execution order")
    w("")
    w("| # | rate | pair | variant | achieved req/s | p99 ms | max ms | server req in window | CPU µs/req | epoll_ctl/req | syscalls/req | CPU pressure | TIME_WAIT after |")
    w("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for i, r in enumerate(runs, 1):
        w(f"| {i} | {r['rate']:,.0f} | {r['pair']} | {VARIANT_NAME[r['variant']]} | {fmt(r['achieved_rate'])} | "
          f"{fmt(r['p99_ms'])} | {fmt(r['max_ms'])} | {r['reqs']:,} | {fmt(r['cpu_us_per_req'])} | "
          f"{fmt(r['epoll_ctl_per_req'])} | {fmt(r['syscalls_per_req'])} | {100 * r['cpu_pressure']:.0f} % | "
          f"{r['time_wait_after']} |")
    w("")

    fields = ["rate", "pair", "variant", "achieved_rate", "p50_ms", "p90_ms", "p99_ms", "p999_ms", "max_ms",
              "mean_ms", "errors", "timeouts", "incomplete", "send_lag_p99_ms", "reqs", "window_s", "server_rate",
              "cpu_us_per_req", "server_util", "load_util", "cs_per_req", "epoll_ctl_per_req", "epoll_wait_per_req",
              "read_per_req", "write_per_req", "syscalls_per_req"]
    with open(os.path.join(asset_dir, "runs.csv"), "w", newline="", encoding="utf-8") as f:
        cw = csv.writer(f)
        cw.writerow(fields + [f"perf_{k}" for k in PERF_KEYS.values()])
        for r in runs:
            cw.writerow([r[k] if not isinstance(r[k], float) else f"{r[k]:.6g}" for k in fields]
                        + [f"{r['perf'][k]:.6g}" for k in PERF_KEYS.values()])

    with open(out, "w", encoding="utf-8") as f:
        f.write("\n".join(L))


def main(argv):
    try:
        if len(argv) == 3 and argv[1] == "summary":
            summary(argv[2])
        elif len(argv) == 4 and argv[1] == "render":
            render(argv[2], argv[3])
        else:
            print(__doc__, file=sys.stderr)
            return 2
    except (DataError, OSError, KeyError, ValueError) as e:
        print(f"report.py: error: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
