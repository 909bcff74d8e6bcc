#!/usr/bin/env python3
"""ET-JDK end-to-end benchmark: parse raw run directories, print summaries, write the report.

  report.py summary RUN_DIR          one line about one run (used by run.sh after each run)
  report.py capcheck RUN_DIR MAX_LAG_MS MAX_P99_MS  "ok ..." if a capacity step kept up, else "fail <why>"
  report.py render RAW_DIR OUT.md    OUT.md, OUT.csv beside it and latency plots (SVG) in OUT/

Standard library only (shared code: bench/lib/report.py). Every number
written comes from the files under RAW_DIR.
"""

import json
import math
import os
import shutil
import statistics
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import report as R  # noqa: E402

VARIANT_NAME = {"upstream": "UPSTREAM", "oneshot": "ONESHOT", "et": "ET", "et2": "ET2", "mode4": "MODE4"}
VARIANT_OPTS = {"upstream": "", "oneshot": "-Djdk.pollerEdgeTriggered=false", "et": "-Djdk.pollerEdgeTriggered=true",
                "et2": "-Djdk.pollerMode=2", "mode4": "-Djdk.pollerMode=4"}
PERF_KEYS = {
    "task-clock": "task_clock_ms",
    "context-switches": "cs",
    "syscalls:sys_enter_epoll_ctl": "epoll_ctl",
    "syscalls:sys_enter_epoll_wait": "epoll_wait",
    "syscalls:sys_enter_read": "read",
    "syscalls:sys_enter_write": "write",
    "raw_syscalls:sys_enter": "syscalls",
}


DataError = R.DataError


read_env = R.read_kv


def read_perf(path):
    """perf stat -x, output -> {our key: count}, every event of PERF_KEYS required."""
    return {PERF_KEYS[e]: v for e, v in R.read_perf_csv(path, PERF_KEYS).items()}


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
        "load1_before": env.get("load1_before", ""),
        "psi10_before": env.get("psi10_before", ""),
        "busy_before": env.get("busy_before", ""),
        "throttled_periods": int(env.get("throttled_periods", "0") or 0),
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


fmt = R.fmt


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


def capcheck(d, max_lag_ms, max_p99_ms):
    r = load_run(d)
    why = []
    if not r["p99_ms"] < max_p99_ms:
        why.append(f"latency p99 {fmt(r['p99_ms'])} ms >= {max_p99_ms:g} ms (overloaded)")
    if not r["send_lag_p99_ms"] < max_lag_ms:
        why.append(f"generator send lag p99 {fmt(r['send_lag_p99_ms'])} ms >= {max_lag_ms:g} ms")
    for k in ("timeouts", "errors", "incomplete"):
        if r[k] > 0:
            why.append(f"{int(r[k])} {k}")
    if r["achieved_rate"] < 0.98 * r["rate"]:
        why.append(f"achieved {fmt(r['achieved_rate'])} < 98% of {r['rate']:.0f}")
    print(("fail " + "; ".join(why)) if why else
          f"ok (achieved {fmt(r['achieved_rate'])}, send lag p99 {fmt(r['send_lag_p99_ms'])} ms, "
          f"p99 {fmt(r['p99_ms'])} ms, server CPU {fmt(r['server_util'])})")


COLORS = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728"]


def render(raw, out):
    cfg = read_env(os.path.join(raw, "config.env"))
    meta = read_env(os.path.join(raw, "meta.env"))
    with open(os.path.join(raw, "runs.list"), encoding="utf-8") as f:
        run_dirs = [os.path.join(raw, n.strip()) for n in f if n.strip()]
    if not run_dirs:
        raise DataError(f"no completed runs under {raw}")
    runs = [load_run(d, cfg) for d in run_dirs]
    cap_runs = []
    if os.path.exists(os.path.join(raw, "capacity.list")):
        with open(os.path.join(raw, "capacity.list"), encoding="utf-8") as f:
            cap_runs = [load_run(os.path.join(raw, n.strip()), cfg) for n in f if n.strip()]
    max_lag = float(cfg.get("max_lag_ms", "1") or 1)
    for r in runs + cap_runs:
        r["variant_name"] = VARIANT_NAME[r["variant"]]
        r["valid"] = r["send_lag_p99_ms"] <= max_lag
        r["machine_busy"] = meta.get("machine_busy", "0")

    out_dir = os.path.dirname(os.path.abspath(out))
    stem = os.path.splitext(os.path.basename(out))[0]
    asset_dir = os.path.join(out_dir, stem)
    stage = asset_dir + ".partial"
    shutil.rmtree(stage, ignore_errors=True)
    os.makedirs(stage)

    rates = []
    for r in runs:
        if r["rate"] not in rates:
            rates.append(r["rate"])
    variants = cfg["variants"].split()
    names = [VARIANT_NAME[v] for v in variants]
    pairs = int(cfg["pairs"])
    busy = R.busy(meta)
    quota = cfg.get("server_cpu_quota", "")
    period = int(cfg.get("server_cpu_period_us", "") or 100000)

    def rate_label(rate):
        kind = cfg.get("rate_kind")
        if kind == "standard":
            if rate == float(cfg["sustain_rate"]):
                return "sustainable rate"
            if rate == float(cfg["saturate_rate"]):
                return "saturating rate"
        if kind == "capacity":
            return f"{rate / float(cfg['capacity_rate']) * 100:.0f}% of capacity"
        return "fixed rate"

    with open(os.path.join(raw, "load-jdk-version.txt"), encoding="utf-8") as f:
        load_version = f.read().strip()

    L = R.header_lines(meta, "End-to-end benchmark: " + " vs ".join(names) + " read pollers",
                       "bench/e2e/run.sh", R.pair_count([dict(r, variant=r["variant_name"], pair=str(r["pair"]))
                                                         for r in runs], names),
                       ", ".join(names),
                       [f"{cfg['perf_version']}; scheduler autogroup: {cfg['autogroup']}",
                        f"ephemeral ports {cfg['port_range']}, tcp_tw_reuse {cfg['tcp_tw_reuse']}, "
                        f"somaxconn {cfg['somaxconn']}, open files {cfg['ulimit_n']}",
                        f"load generator and backend JDK: `{load_version.splitlines()[0]}`"])
    w = L.append
    if cfg.get("quick") == "1":
        w("**This is a `--quick` smoke run (small settings): it checks the plumbing, its numbers are not a result.**")
        w("")
    if cfg.get("via_make") == "yes":
        w("(run by `make bench-e2e`)")
        w("")
    w("## Setup")
    w("")
    w(f"- **Server** (JDK under test, `{cfg['jdk']}`): thread-per-connection on virtual threads, blocking "
      "`java.net.ServerSocket`/`Socket` streams, HTTP/1.1 keep-alive; per request it borrows a blocking "
      f"`Socket` from a pool of {cfg['pool']} pre-opened connections to the backend, sends 16 bytes, waits for "
      "64 bytes, and answers `200` with a 13-byte body and `Content-Length`. "
      f"JVM options: `{cfg['server_opts']}` and the variant's (below); without `-Djdk.pollerMode` the "
      "JDK default applies (2: virtual-thread pollers on Linux). "
      f"Pinned with `taskset -c {cfg['server_cpu']}`, so the JVM sees 1 CPU and the virtual-thread scheduler "
      "has parallelism 1." + (f" **CPU quota: {quota}% of one CPU** (cgroup v1 `cpu.cfs_quota_us` "
                              f"{int(quota) * period // 100:,} per {period:,} µs period on the server JVM; throttled "
                              "periods per run are in the CSV)." if quota else ""))
    described = ", ".join(f"{VARIANT_NAME[v]} = `{VARIANT_OPTS[v]}`" if VARIANT_OPTS[v]
                          else f"{VARIANT_NAME[v]} = no property (upstream's code path)" for v in variants)
    w(f"- **Variants**: {described}; ratios are against {names[0]}; run alternately, order per rate: "
      f"{' '.join(names)} × {pairs} pair(s). Each run starts fresh JVMs. The load guard "
      "(bench/README.md) checked the machine before every run.")
    w(f"- **Backend** (`{cfg['load_jdk']}`): one NIO selector thread; answers each request after "
      f"{cfg['think_ms']} ms think time (+0–1 ms timer granularity). JVM options: `{cfg['backend_opts']}`.")
    w(f"- **Load generator** (`{cfg['load_jdk']}`): open model, {int(cfg['connections']):,} keep-alive "
      "connections, fixed arrival rate spread evenly over the connections; latency is measured from each "
      "request's *intended* send time (no coordinated omission). One NIO selector thread (no virtual threads). "
      f"JVM options: `{cfg['load_opts']}`. HdrHistogram 2.2.2.")
    w(f"- **CPUs**: server on CPU {cfg['server_cpu']}; backend and load generator share CPU {cfg['load_cpu']} "
      f"(`taskset`); the machine has {meta.get('nproc', '?')}.")
    w(f"- **Timeline per run**: open all connections, {cfg['warmup']} s warmup (not measured), {cfg['duration']} s "
      f"measured window, then up to {cfg['drain']} s for its requests to finish (the rest count as "
      f"*incomplete*). A request unanswered {cfg['timeout']} s after it was sent is a *timeout*.")
    w(f"- **Server cost**: the server JVM runs under `perf stat -x, -e {cfg['perf_events']} -D -1 "
      "--control fifo:…` (counters off); they are switched on for the measured window minus 0.5 s at each end "
      "and the counts are divided by the requests the server completed in exactly that span. Whole process.")
    w(f"- **Valid cells**: a run whose generator send lag p99 exceeds {max_lag:g} ms measured the load "
      "generator, not the server: it is marked *invalid* and its cell says so.")
    w("")

    if cap_runs:
        w("## Capacity")
        w("")
        w(f"Capacity = the highest rate at which {names[0]} kept generator send lag p99 < {max_lag:g} ms, "
          + (f"and latency p99 < {float(cfg['cap_max_p99_ms']):g} ms, " if cfg.get('cap_max_p99_ms') else "")
          + "with no timeouts, errors or incomplete requests and ≥ 98% of the rate achieved; rates stepped "
          f"×{cfg.get('cap_factor', '?')} from {cfg.get('cap_start', '?')} req/s, each step "
          f"{cfg.get('cap_warmup', '?')} s warmup + {cfg.get('cap_duration', '?')} s measured. "
          f"**Capacity: {float(cfg['capacity_rate']):,.0f} req/s**; the pairs ran at "
          f"{cfg.get('cap_pcts', '?')}% of it.")
        w("")
        L.extend(R.stamp_lines(meta))
        w("| rate | achieved req/s | send lag p99 ms | p99 ms | timeouts | server CPU (cores) | CPU µs/req |")
        w("|---:|---:|---:|---:|---:|---:|---:|")
        for r in cap_runs:
            w(f"| {r['rate']:,.0f} | {fmt(r['achieved_rate'])} | {fmt(r['send_lag_p99_ms'])} | {fmt(r['p99_ms'])} "
              f"| {fmt_int(r['timeouts'])} | {fmt(r['server_util'])} | {fmt(r['cpu_us_per_req'])} |")
        w("")

    w("## Results")
    w("")
    w(R.ratio_note(names))
    w("")
    lat_cols = [("achieved_rate", "achieved req/s", fmt), ("p50_ms", "p50 ms", fmt), ("p90_ms", "p90 ms", fmt),
                ("p99_ms", "p99 ms", fmt), ("p999_ms", "p99.9 ms", fmt), ("max_ms", "max ms", fmt),
                ("errors", "errors", fmt_int), ("timeouts", "timeouts", fmt_int),
                ("incomplete", "incomplete", fmt_int), ("send_lag_p99_ms", "generator send lag p99 ms", fmt),
                ("load_util", "load-side CPU (cores)", fmt)]
    cost_cols = [("cpu_us_per_req", "CPU µs/req", fmt), ("server_util", "server CPU (cores)", fmt),
                 ("server_rate", "server req/s in perf window", fmt),
                 ("cs_per_req", "context switches/req", fmt), ("epoll_ctl_per_req", "epoll_ctl/req", fmt),
                 ("epoll_wait_per_req", "epoll_wait/req", fmt), ("read_per_req", "read/req", fmt),
                 ("write_per_req", "write/req", fmt), ("syscalls_per_req", "all syscalls/req", fmt)]
    plots = []
    notes = []
    for rate in rates:
        rr = [dict(r, variant=r["variant_name"], pair=str(r["pair"])) for r in runs if r["rate"] == rate]
        label = rate_label(rate)
        w(f"### {rate:,.0f} req/s target ({label})")
        w("")
        L.extend(R.stamp_lines(meta))
        bad = [r for r in rr if not r["valid"]]
        if bad:
            w(f"**Invalid cell**: in {len(bad)} of {len(rr)} runs the generator send lag p99 exceeded "
              f"{max_lag:g} ms (up to {fmt(max(r['send_lag_p99_ms'] for r in bad))} ms): the load side "
              "fell behind, so latency and throughput here describe the generator, not the server.")
            w("")
        w("Throughput and latency (load generator):")
        w("")
        L.extend(R.paired_table(rr, names, lat_cols))
        w("")
        w("Server cost per request (`perf stat`, whole server process):")
        w("")
        L.extend(R.paired_table(rr, names, cost_cols))
        w("")
        svg = f"latency-{int(rate)}.svg"
        curves = []
        for r in sorted(rr, key=lambda r: (names.index(r["variant"]), int(r["pair"]))):
            vi = names.index(r["variant"])
            curves.append((f"{r['variant']} pair {r['pair']}", COLORS[vi % len(COLORS)],
                           (int(r["pair"]) % 2 == 0), r["hgrm"]))
        R.svg_percentiles(os.path.join(stage, svg),
                          f"{rate:,.0f} req/s target ({label}), {int(cfg['connections']):,} connections, "
                          f"{cfg['duration']} s measured", curves, busy)
        plots.append(svg)
        w(f"![latency percentiles at {rate:,.0f} req/s]({stem}/{svg})")
        w("")
        o = [r for r in rr if r["variant"] == "ONESHOT"]
        e = [r for r in rr if r["variant"] == "ET"]
        if o and e:
            mo = statistics.median(r["epoll_ctl_per_req"] for r in o)
            me = statistics.median(r["epoll_ctl_per_req"] for r in e)
            if mo > 0 and me > 0.5 * mo:
                notes.append(f"At {rate:,.0f} req/s ET made {fmt(me)} epoll_ctl calls per request against "
                             f"ONESHOT's {fmt(mo)}: the flag had no visible effect, so the JDK under test "
                             "probably does not implement `-Djdk.pollerEdgeTriggered` (an upstream JDK ignores it).")
        for r in rr:
            badk = [f"{int(r[k])} {k}" for k in ("errors", "timeouts") if r[k] > 0]
            if badk:
                notes.append(f"{r['variant']} pair {r['pair']} at {rate:,.0f} req/s: " + ", ".join(badk) + ".")
        lagging = [r for r in rr if r["achieved_rate"] < 0.9 * r["server_rate"]]
        if lagging:
            notes.append(f"At {rate:,.0f} req/s, in {len(lagging)} of {len(rr)} runs the load generator received "
                         "under 90 % of the responses per second that the server completed in the perf window: "
                         "the load side fell behind.")
        if label == "saturating rate":
            su = statistics.median(r["server_util"] for r in rr)
            lu = statistics.median(r["load_util"] for r in rr)
            notes.append(f"At the saturating rate the server used a median {fmt(su)} cores of its CPU and the "
                         f"load generator + backend {fmt(lu)} cores of theirs; latency there describes the "
                         "overload (open model), not the server's service time.")
    hot = [r for r in runs if r["cpu_pressure"] > 0.10]
    if hot:
        notes.append(f"In {len(hot)} of {len(runs)} runs some task waited for a CPU more than 10 % of the perf "
                     f"window (Linux PSI, up to {100 * max(r['cpu_pressure'] for r in hot):.0f} %): the "
                     "benchmark's own processes (load generator and backend share a CPU) or other work competed "
                     "for the cores.")
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
    w("- *generator send lag*: actual − intended send time; above the valid limit the cell is invalid.")
    w("- *load-side CPU*: CPU time of the load generator + backend during the perf window ÷ its length.")
    w("- *server CPU (cores)*: `task-clock` ÷ window length. *…/req*: `perf stat` count ÷ requests completed by "
      "the server in the same window. *all syscalls* is `raw_syscalls:sys_enter`.")
    w("")
    w("## All runs, in execution order")
    w("")
    L.extend(R.stamp_lines(meta))
    w("| # | rate | pair | variant | valid | achieved req/s | p99 ms | send lag p99 ms | CPU µs/req "
      "| epoll_ctl/req | syscalls/req | CPU pressure | load1 before |")
    w("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for i, r in enumerate(runs, 1):
        w(f"| {i} | {r['rate']:,.0f} | {r['pair']} | {r['variant_name']} | {'yes' if r['valid'] else '**no**'} "
          f"| {fmt(r['achieved_rate'])} | {fmt(r['p99_ms'])} | {fmt(r['send_lag_p99_ms'])} "
          f"| {fmt(r['cpu_us_per_req'])} | {fmt(r['epoll_ctl_per_req'])} | {fmt(r['syscalls_per_req'])} "
          f"| {100 * r['cpu_pressure']:.0f} % | {r['load1_before']} |")
    w("")
    w(f"Per-run values: [`{stem}.csv`]({stem}.csv).")

    fields = ["phase", "rate", "pair", "variant_name", "valid", "achieved_rate", "p50_ms", "p90_ms", "p99_ms",
              "p999_ms", "max_ms", "mean_ms", "errors", "timeouts", "incomplete", "send_lag_p99_ms", "reqs",
              "window_s", "server_rate", "cpu_us_per_req", "server_util", "load_util", "cs_per_req",
              "epoll_ctl_per_req", "epoll_wait_per_req", "read_per_req", "write_per_req", "syscalls_per_req",
              "cpu_pressure", "load1_before", "psi10_before", "busy_before", "throttled_periods", "machine_busy"]
    rows = [dict(r, phase="capacity") for r in cap_runs] + [dict(r, phase="main") for r in runs]
    R.write_csv(stage + ".csv", rows, fields)
    R.write_page(stage + ".md", L)
    # everything written: move it in place together
    if os.path.isdir(asset_dir):
        odd = [f for f in os.listdir(asset_dir) if not f.endswith((".svg", ".png", ".csv"))]
        if odd:
            raise DataError(f"refusing to replace {asset_dir}: it holds {', '.join(odd)}")
        shutil.rmtree(asset_dir)
    os.replace(stage, asset_dir)
    os.replace(stage + ".csv", os.path.join(out_dir, stem + ".csv"))
    os.replace(stage + ".md", out)


def main(argv):
    try:
        if len(argv) == 3 and argv[1] == "summary":
            summary(argv[2])
        elif len(argv) == 5 and argv[1] == "capcheck":
            capcheck(argv[2], float(argv[3]), float(argv[4]))
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
