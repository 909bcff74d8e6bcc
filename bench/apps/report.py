#!/usr/bin/env python3
"""Results of bench/apps/run.sh (make bench-apps), standard library only.

  report.py line RAW RUN_DIR       one line about one run (printed after each run)
  report.py peak RAW ENDPOINT [PART]  the peak req/s of ENDPOINT: the baseline variant's
                                   median at its best connection count, in the part
                                   peak (default) or capacity
  report.py render RAW OUT.md      the page, OUT.csv beside it, plots in OUT's dir/<name>/

Statistics, tables, the page header, CSV and SVG come from bench/lib/report.py.
"""

import json
import math
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import report as R  # noqa: E402

EVENTS = ["task-clock", "context-switches", "syscalls:sys_enter_epoll_ctl", "raw_syscalls:sys_enter"]
NAN = float("nan")


def kv_line(path, prefix):
    """The key=value pairs of the first line of PATH starting with PREFIX."""
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            if line.startswith(prefix):
                out = {}
                for w in line[len(prefix):].split():
                    k, _, v = w.partition("=")
                    out[k] = v
                return out
    raise R.DataError(f"{path}: no line starting with '{prefix}'")


def num(d, k):
    v = d.get(k)
    if v is None or v in ("", "null", "NaN"):
        return NAN
    return float(v)


# the kernel's TCP counters over a run (nstat, system-wide), by CSV column
TCP_COUNTERS = {"tcp_listen_overflows": "TcpExtListenOverflows", "tcp_syn_retrans": "TcpExtTCPSynRetrans",
                "tcp_rto": "TcpExtTCPTimeouts", "tcp_retrans_segs": "TcpRetransSegs"}


def tcp_note(rs):
    """What the kernel's TCP counters say over the runs rs, or '' when not recorded."""
    vals = {k: [r[k] for r in rs if not math.isnan(r[k])] for k in TCP_COUNTERS}
    if not all(len(v) == len(rs) for v in vals.values()):
        return ""
    t = {k: int(sum(v)) for k, v in vals.items()}
    return (f"{t['tcp_listen_overflows']} listen-queue overflows, {t['tcp_syn_retrans']} SYN retransmissions, "
            f"{t['tcp_rto']} retransmission timeouts, {t['tcp_retrans_segs']} segments retransmitted")


def load_run(d):
    env = R.read_kv(os.path.join(d, "run.env"))
    part = env["part"]
    r = {"part": part, "cell": env["cell"], "pair": env["pair"], "variant": env["variant"],
         "load1_before": env.get("load1_before", ""), "load1_after": env.get("load1_after", ""),
         "psi10_before": env.get("psi10_before", ""), "busy_before": env.get("busy_before", ""),
         "rate_target": NAN, "achieved_rate": NAN, "send_lag_p99_ms": NAN, "queued_pct": NAN, "held": "",
         "starved": NAN, "wrk_rps": NAN, "timeouts": NAN, "unanswered": NAN}
    for key, name in TCP_COUNTERS.items():
        b, a = env.get(f"tcp_{name}_before"), env.get(f"tcp_{name}_after")
        r[key] = float(a) - float(b) if a not in (None, "") and b not in (None, "") else NAN
    perf = R.read_perf_csv(os.path.join(d, "perf.csv"), EVENTS)
    if part in ("peak", "capacity", "rate"):
        requests = float(env["served_after"]) - float(env["served_before"])
        window = float(env["perf_t1"]) - float(env["perf_t0"])
        r["rps"] = requests / window if window > 0 else NAN
    if part in ("peak", "capacity"):
        w = kv_line(os.path.join(d, "wrk.log"), "WRK_RESULT ")
        for k in ("p50", "p99", "p999"):
            r[k + "_ms"] = num(w, k + "_us") / 1000.0
        r["max_ms"] = num(w, "max_us") / 1000.0
        r["errors"] = sum(num(w, k) for k in ("err_connect", "err_read", "err_write", "err_timeout"))
        r["timeouts"] = num(w, "err_timeout")
        r["bad"] = num(w, "err_status")
        r["wrk_rps"] = num(w, "requests") / num(w, "duration_us") * 1e6
    elif part == "rate":
        j = None
        with open(os.path.join(d, "load.log"), encoding="utf-8", errors="replace") as f:
            for line in f:
                if line.startswith("RESULT_JSON "):
                    j = json.loads(line[len("RESULT_JSON "):])
        if j is None:
            raise R.DataError(f"{d}/load.log: no RESULT_JSON")
        g = {k: (NAN if v is None else v) for k, v in j.items()}
        for k in ("p50_ms", "p99_ms", "p999_ms", "max_ms", "achieved_rate", "send_lag_p99_ms"):
            r[k] = float(g[k])
        r["queued_pct"] = float(g.get("queued_pct", NAN))
        r["rate_target"] = float(env["rate_target"])
        r["timeouts"] = float(g["timeouts"])
        r["unanswered"] = float(g["timeouts"]) + float(g["incomplete"])
        r["errors"] = float(g["errors"]) - float(g["non200"])
        r["bad"] = float(g["non200"])
        max_lag = float(env["max_lag_ms"])
        r["held"] = "yes" if (r["achieved_rate"] >= 0.98 * r["rate_target"] and g["timeouts"] == 0
                              and g["incomplete"] == 0 and not math.isnan(r["send_lag_p99_ms"])
                              and r["send_lag_p99_ms"] <= max_lag) else "no"
    elif part == "db":
        res = kv_line(os.path.join(d, "client.log"), "RESULT ")
        requests = num(res, "tx")
        window = num(res, "seconds")
        r["rps"] = num(res, "rate")
        for k in ("p50_ms", "p99_ms", "p999_ms", "max_ms"):
            r[k] = num(res, k)
        r["errors"] = num(res, "errors")
        r["bad"] = num(res, "bad") + num(res, "lost")
        r["starved"] = num(res, "starved")
    else:
        raise R.DataError(f"{d}: unknown part {part}")
    if requests <= 0:
        raise R.DataError(f"{d}: no requests were counted in the perf window")
    r["requests"] = requests
    r["window_s"] = window
    r["cpu_us_per_req"] = perf["task-clock"] * 1000.0 / requests
    r["cpu_util"] = perf["task-clock"] / 1000.0 / window if window > 0 else NAN
    r["cs_per_req"] = perf["context-switches"] / requests
    r["epoll_ctl_per_req"] = perf["syscalls:sys_enter_epoll_ctl"] / requests
    r["syscalls_per_req"] = perf["raw_syscalls:sys_enter"] / requests
    return r


def load_all(raw):
    cfg = R.read_kv(os.path.join(raw, "config.env"))
    meta = R.read_kv(os.path.join(raw, "meta.env"))
    variants = [row["name"] for row in R.read_table(os.path.join(raw, "variants.tsv"), "\t")]
    vopts = {row["name"]: row["opts"] for row in R.read_table(os.path.join(raw, "variants.tsv"), "\t")}
    runs = []
    with open(os.path.join(raw, "runs.list"), encoding="utf-8") as f:
        for line in f:
            if line.strip():
                d = os.path.join(raw, line.strip())
                runs.append(load_run(d))
    return cfg, meta, variants, vopts, runs


# ------------------------------------------------------------------ text

def cell_title(part, cell, cfg, runs):
    if part in ("peak", "capacity"):
        ep, c = cell.rsplit("-c", 1)
        cap = f", server capped at {cfg.get('rate_cpu_quota', '?')}% of one CPU" if part == "capacity" else ""
        return f"/{ep}, {int(c):,} connections{cap}"
    if part == "rate":
        ep, pct = cell.rsplit("-", 1)
        tgt = [r["rate_target"] for r in runs if r["part"] == part and r["cell"] == cell]
        base = "capacity" if int(cfg.get("rate_cpu_quota", "0") or 0) > 0 else "peak"
        return f"/{ep} at {pct}% of the {base} ({R.fmt(tgt[0]) if tgt else '?'} req/s), {cfg.get('rate_connections', '?')} connections"
    tx, mode = cell.split("-", 1)
    what = "point SELECT by primary key" if tx == "select" else "UPDATE of the thread's own row + read back, one transaction"
    if mode == "direct":
        how = f"{cfg.get('db_threads', '?')} virtual threads, one connection each"
    else:
        how = f"{cfg.get('db_threads', '?')} virtual threads, HikariCP pool of {cfg.get('db_pool', '?')}"
    return f"{what}; {how}"


def short_label(part, cell):
    if part in ("peak", "capacity"):
        ep, c = cell.rsplit("-c", 1)
        return f"{'text' if ep == 'plaintext' else ep} c{c}"
    if part == "rate":
        ep, pct = cell.rsplit("-", 1)
        return f"{'text' if ep == 'plaintext' else ep} {pct}%"
    tx, mode = cell.split("-", 1)
    return f"{tx} {mode}"


F = R.fmt
COLS = {
    "peak": [("rps", "req/s", F), ("p50_ms", "p50 ms", F), ("p99_ms", "p99 ms", F), ("p999_ms", "p99.9 ms", F),
             ("max_ms", "max ms (raw)", F), ("cpu_us_per_req", "CPU µs/req", F), ("cpu_util", "server CPU (cores)", F),
             ("cs_per_req", "ctx sw/req", F), ("epoll_ctl_per_req", "epoll_ctl/req", F),
             ("syscalls_per_req", "syscalls/req", F), ("errors", "errors", F), ("bad", "non-200", F)],
    "capacity": None,
    "rate": [("achieved_rate", "achieved req/s", F), ("send_lag_p99_ms", "send lag p99 ms", F),
             ("queued_pct", "queued %", F),
             ("p50_ms", "p50 ms", F), ("p99_ms", "p99 ms", F), ("p999_ms", "p99.9 ms", F),
             ("cpu_us_per_req", "CPU µs/req", F), ("cpu_util", "server CPU (cores)", F),
             ("cs_per_req", "ctx sw/req", F), ("epoll_ctl_per_req", "epoll_ctl/req", F),
             ("syscalls_per_req", "syscalls/req", F), ("errors", "errors", F), ("bad", "non-200", F),
             ("unanswered", "late or unanswered", F)],
    "db": [("rps", "tx/s", F), ("p50_ms", "p50 ms", F), ("p99_ms", "p99 ms", F), ("p999_ms", "p99.9 ms", F),
           ("cpu_us_per_req", "CPU µs/tx", F), ("cpu_util", "client CPU (cores)", F),
           ("cs_per_req", "ctx sw/tx", F), ("epoll_ctl_per_req", "epoll_ctl/tx", F),
           ("syscalls_per_req", "syscalls/tx", F), ("errors", "errors", F), ("bad", "bad/lost", F),
           ("starved", "starved threads", F)],
}
COLS["capacity"] = COLS["peak"]
PART_TITLES = {
    "peak": "Peak throughput: wrk, closed loop",
    "capacity": "Capacity under a CPU cap: wrk, closed loop",
    "rate": "Latency at fixed rates: open model",
    "db": "Database client: MariaDB Connector/J and HikariCP",
}
PART_INTRO = {
    "peak": ("The Jetty server (JDK under test, CPU {server_cpu}) against `wrk -t1` (CPU {load_cpu}) for "
             "{warmup} s of warmup and {duration} s measured. req/s is the server's own count over the perf "
             "window; the latencies are wrk's, from send to response on a busy connection, closed loop. wrk 4.1 "
             "corrects its histogram for coordinated omission (a latency L of at least twice the mean interval T "
             "between requests on a connection also counts as L − T, L − 2T, … down to T), so p99 and p99.9 "
             "grow with the number and the square of the length of the longest stalls; max is raw. "
             "bench/apps/README.md has the details."),
    "capacity": ("The rate part's server under `wrk -t1` at {rate_connections} connections, as in the peak "
                 "part, but capped at {rate_cpu_quota}% of one CPU by a cgroup CPU quota (period "
                 "{quota_period_us} µs) after an uncapped {warmup} s warmup (so that the JIT's work is done "
                 "first; the rate runs are warmed the same way). One load-generator thread cannot hold fixed rates near the uncapped peak (about "
                 "20,000 req/s is its reach: bench/apps/README.md), so the rates run against this capacity: the "
                 "first variant's median req/s. The cap is what a CPU-limited container sees; its throttling "
                 "(the quota is spent, the server waits for the next period) shows in the tails."),
    "rate": ("The same server under bench/e2e's open-model generator (`E2eLoad`, one NIO thread on the load "
             "JDK, CPU {load_cpu}) at a fixed rate, a percentage of the base rate (with a CPU cap, the first "
             "variant's median capacity under it, above; without, its median peak req/s at its best connection "
             "count; or `--peak`). Latency runs from each request's *intended* send time. "
             "A run held its rate when it achieved at least 98% of it, with no timeout or unanswered request "
             "and a generator send lag p99 of at most {max_lag_ms} ms; the line under each table says which "
             "runs did. The send lag is the generator's own delay, from the later of the intended time and the "
             "moment the request's connection was free; *queued %* is the share of requests whose connection "
             "still waited for its previous response at their intended time (the server's delay: in their "
             "latency, not in the lag). *errors* are connection errors; *late or unanswered* are responses that came more than "
             "{timeout} s after the request was sent, or not within {drain} s after the window."),
    "db": ("The client JVM (JDK under test, CPU {server_cpu}) runs {db_threads} virtual threads in a closed "
           "loop against a MariaDB server started for this run (CPU {load_cpu}; a fresh data directory, "
           "`--innodb-flush-log-at-trx-commit=2`). Every result is checked: a wrong row, a wrong update count "
           "or a read-back that differs counts as bad, and after each update run every thread's row must hold "
           "the last value the thread committed (a lost update). Any of them fails the run. Latency: from the "
           "start of a transaction, borrowing the connection included, to its last result. *Starved threads*: "
           "threads that completed no transaction in the measured window."),
}


def span(vals):
    v = [float(x) for x in vals if x not in ("", None, "n/a")]
    if not v:
        return "n/a"
    lo, hi = min(v), max(v)
    return f"{lo:.2f}" if lo == hi else f"{lo:.2f}–{hi:.2f}"


def render(raw, out):
    cfg, meta, variants, vopts, runs = load_all(raw)
    if not runs:
        raise R.DataError(f"{raw}: no runs")
    base = variants[0]
    pairs = R.pair_count(runs, variants)
    name = os.path.splitext(os.path.basename(out))[0]
    plot_dir = os.path.join(os.path.dirname(os.path.abspath(out)), name)
    os.makedirs(plot_dir, exist_ok=True)
    busy = R.busy(meta)

    jars = cfg.get("jars", "").split()
    versions = [f"Java stacks (Maven Central, pinned in `bench/apps/pom.xml`, SHA-256 in `bench/apps/jars.sha256`): "
                + ", ".join(f"`{j}`" for j in jars)]
    if cfg.get("mariadbd_version"):
        versions.append(f"Database server: `{cfg['mariadbd_version']}`")
    if cfg.get("wrk_version"):
        versions.append(f"HTTP load: `{cfg['wrk_version']}`")
    if cfg.get("load_java"):
        versions.append(f"Open-model load generator: bench/e2e `E2eLoad` on {cfg['load_java']}")
    versions.append(f"perf: `{cfg.get('perf_version', '?')}`; events `{cfg.get('perf_events', '?')}`")
    versions.append(f"CPUs: JVM under test on CPU {cfg.get('server_cpu')}, load generators and mariadbd on CPU "
                    f"{cfg.get('load_cpu')} (`taskset`); JVM options of every run under test: `{cfg.get('jvm_opts')}`")
    if cfg.get("git_dirty") == "1":
        versions.append("The work tree had uncommitted changes when this ran.")
    vdesc = ", ".join(f"{v} (`{vopts[v]}`)" if vopts[v] else f"{v} (no option)" for v in variants)
    L = R.header_lines(meta, "Third-party stacks on virtual threads: Jetty 12, MariaDB Connector/J, HikariCP",
                       "bench/apps/run.sh", pairs, vdesc, versions)

    # observations computed from the run
    obs = []
    jv = (meta.get("java_version", "") + " " + meta.get("java_runtime", "")).lower()
    if "et-jdk" not in jv:
        obs.append("The JDK under test is not ET-JDK: it has no edge-triggered read pollers. `-Djdk.pollerMode` "
                   "still picks upstream's poller mode (1: platform poller threads; 2: virtual-thread sub-pollers, "
                   "the Linux default), so here `-Djdk.pollerMode=2` is upstream's default and `=1` upstream's "
                   "mode 1. This page shows that the scripts work, not what ET changes.")
    if cfg.get("quick") == "1":
        obs.append("`--quick` smoke run: 1 pair, very short windows; not a measurement.")
    not_held = [r for r in runs if r["part"] == "rate" and r["held"] != "yes"]
    if not_held:
        cells = sorted({short_label("rate", r["cell"]) for r in not_held})
        obs.append(f"{len(not_held)} open-model run(s) did not hold their rate ({', '.join(cells)}): there the "
                   "load side or an overloaded server set the pace; compare the achieved rate and the send lag.")
    wto = [r for r in runs if r["part"] in ("peak", "capacity") and r["timeouts"] > 0]
    if wto:
        by_cell = {}
        for r in wto:
            by_cell.setdefault((r["part"], r["cell"]), []).append(r)
        parts = []
        for (part, cell), rs in by_cell.items():
            of = sum(1 for r in runs if r["part"] == part and r["cell"] == cell)
            per_v = ", ".join(f"{v} {sum(1 for r in rs if r['variant'] == v)}" for v in variants
                              if any(r["variant"] == v for r in rs))
            note = tcp_note(rs)
            others = [r for r in runs if r["part"] == part and r["cell"] == cell and r["timeouts"] == 0]
            others_note = tcp_note(others) if others else ""
            if note:
                per_v += f"; the kernel counted {note} in them"
                if others_note:
                    per_v += f", and {others_note} in the {len(others)} without"
            parts.append(f"{part} {short_label(part, cell)}: {len(rs)} of {of} runs ({per_v})")
        counted = tcp_note(wto)
        obs.append("wrk counted timeouts (the errors of the peak and capacity tables) in " + "; ".join(parts)
                   + ". A wrk timeout is a response slower than its `--timeout` (5 s; left out of its "
                   "latencies, so max is then the slowest response under 5 s), or a connection whose last "
                   "request went out more than 5 s before, at each of its 2-s checks: a connection waited "
                   "over 5 s for a response. "
                   + ("The kernel's TCP counters (nstat, system-wide) tell a lost segment (its retransmission "
                      "waits 0.2 s or more, a SYN's 1 s) from a slow server (bench/apps/README.md)."
                      if counted else
                      "Why is not known from this run; bench/apps/README.md says what later runs found."))
    st = [r for r in runs if r["part"] == "db" and r["starved"] > 0]
    if st:
        worst = max(r["starved"] for r in st)
        obs.append(f"{len(st)} database run(s) had starved threads (at most {worst:.0f} of "
                   f"{cfg.get('db_threads')}): with a pool smaller than the thread count, a few threads did "
                   "all the work.")
    if obs:
        L += ["## Observations", ""] + [f"- {o}" for o in obs] + [""]

    fmtargs = {k: cfg.get(k, "?") for k in ("server_cpu", "load_cpu", "warmup", "duration", "max_lag_ms", "db_threads",
                                            "timeout", "drain", "rate_cpu_quota", "quota_period_us",
                                            "rate_connections")}
    L += [R.ratio_note(variants), "",
          "Per request (or transaction): the JVM under test's CPU time (perf `task-clock`), context switches, "
          "`epoll_ctl` calls and all syscalls, counted over the measured window minus 0.5 s at each end and "
          "divided by the requests completed in that window. *server CPU (cores)* is task-clock over the window: "
          "1.0 is the whole of its CPU.", ""]

    plots = []
    for part in ("peak", "capacity", "rate", "db"):
        pr = [r for r in runs if r["part"] == part]
        if not pr:
            continue
        cells = []
        for r in pr:
            if r["cell"] not in cells:
                cells.append(r["cell"])
        L += [f"## {PART_TITLES[part]}", "", PART_INTRO[part].format(**fmtargs), ""]
        for cell in cells:
            cr = [r for r in pr if r["cell"] == cell]
            L += [f"### {cell_title(part, cell, cfg, runs)}", ""]
            L += R.stamp_lines(meta)
            L += R.paired_table(cr, variants, COLS[part])
            L.append("")
            note = (f"{len(cr)} runs; 1-minute load average at the start of the runs "
                    f"{span(r['load1_before'] for r in cr)}, at their end {span(r['load1_after'] for r in cr)}.")
            if part == "rate":
                held = sum(1 for r in cr if r["held"] == "yes")
                note += f" Rate held in {held} of {len(cr)} runs"
                miss = [f"{r['variant']} pair {r['pair']}" for r in cr if r["held"] != "yes"]
                note += (f" (not: {', '.join(miss)})." if miss else ".")
            L += [note, ""]
        # plots of this part: throughput (or p99 for fixed rates), CPU and epoll_ctl per request
        labels = [short_label(part, c) for c in cells]
        first = ("rps", "req/s" if part in ("peak", "capacity") else "transactions/s", "throughput") if part != "rate" \
            else ("p99_ms", "p99 latency (ms)", "p99-latency")
        for key, ylabel, slug in (first, ("cpu_us_per_req", "CPU µs per request", "cpu-per-request"),
                                  ("epoll_ctl_per_req", "epoll_ctl per request", "epoll-ctl-per-request")):
            series = []
            for i, v in enumerate(variants):
                pts = [R.stats([r.get(key) for r in pr if r["cell"] == c and r["variant"] == v]) for c in cells]
                series.append((v, R.PALETTE[i % len(R.PALETTE)], R.DASHES[i % len(R.DASHES)], pts))
            fn = f"{part}-{slug}.svg"
            title = f"{PART_TITLES[part].split(':')[0]}: {ylabel}"
            R.svg_chart(os.path.join(plot_dir, fn), title, "cell", ylabel, labels, series, busy)
            plots.append((fn, title))

    L += ["## Plots", ""]
    L += R.stamp_lines(meta)
    for fn, title in plots:
        L.append(f"![{title}]({name}/{fn})")
        L.append("")
    L += ["## Files", "",
          f"- [{name}.csv]({name}.csv): one row per run, in execution order (with the load average and CPU "
          "pressure before it and the load average after it).",
          f"- Plots: [{name}/]({name}/).",
          "- Raw runs (perf CSV, wrk / load generator / client / server logs, the database's error log) are in "
          f"`build/bench/apps/runs/{os.path.basename(os.path.normpath(raw))}/` (not in git); the command above "
          "regenerates them.", ""]
    R.write_page(out, L)
    fields = ["part", "cell", "pair", "variant", "requests", "window_s", "rps", "p50_ms", "p99_ms", "p999_ms",
              "max_ms", "cpu_us_per_req", "cpu_util", "cs_per_req", "epoll_ctl_per_req", "syscalls_per_req",
              "errors", "bad", "timeouts", "unanswered", "rate_target", "achieved_rate", "send_lag_p99_ms", "queued_pct", "held", "starved",
              "wrk_rps", "load1_before", "load1_after", "psi10_before", "busy_before"] + list(TCP_COUNTERS)
    R.write_csv(os.path.splitext(out)[0] + ".csv", runs, fields)


def line(raw, d):
    r = load_run(d)
    unit = "tx" if r["part"] == "db" else "req"
    s = (f"  {r['part']} {r['cell']} pair {r['pair']} {r['variant']}: {F(r['rps'])} {unit}/s, "
         f"p50 {F(r['p50_ms'])} ms, p99 {F(r['p99_ms'])} ms, p99.9 {F(r['p999_ms'])} ms; "
         f"CPU {F(r['cpu_us_per_req'])} µs/{unit}, ctx sw {F(r['cs_per_req'])}/{unit}, "
         f"epoll_ctl {F(r['epoll_ctl_per_req'])}/{unit}, syscalls {F(r['syscalls_per_req'])}/{unit}; "
         f"errors {F(r['errors'])}, bad {F(r['bad'])}")
    if r["part"] == "rate":
        s += (f", late or unanswered {F(r['unanswered'])}; target {F(r['rate_target'])}, achieved {F(r['achieved_rate'])} req/s, "
              f"send lag p99 {F(r['send_lag_p99_ms'])} ms, queued {F(r['queued_pct'])}%, held: {r['held']}")
    if r["part"] == "db":
        s += f"; starved threads {F(r['starved'])}"
    print(s)


def peak(raw, endpoint, part="peak"):
    variants = [row["name"] for row in R.read_table(os.path.join(raw, "variants.tsv"), "\t")]
    best = 0.0
    with open(os.path.join(raw, "runs.list"), encoding="utf-8") as f:
        dirs = [os.path.join(raw, x.strip()) for x in f if x.strip()]
    by_cell = {}
    for d in dirs:
        env = R.read_kv(os.path.join(d, "run.env"))
        if env.get("part") == part and env.get("endpoint") == endpoint and env.get("variant") == variants[0]:
            by_cell.setdefault(env["cell"], []).append(load_run(d)["rps"])
    for vals in by_cell.values():
        st = R.stats(vals)
        if st:
            best = max(best, st[0])
    if best <= 0:
        raise R.DataError(f"{raw}: no {part} runs of /{endpoint} by {variants[0]}")
    print(f"{best:.0f}")


def main(argv):
    try:
        if len(argv) == 3 and argv[0] == "line":
            line(argv[1], argv[2])
        elif len(argv) in (3, 4) and argv[0] == "peak":
            peak(*argv[1:])
        elif len(argv) == 3 and argv[0] == "render":
            render(argv[1], argv[2])
        else:
            print(__doc__, file=sys.stderr)
            return 2
    except (R.DataError, KeyError, ValueError, OSError) as e:
        print(f"report.py: error: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
