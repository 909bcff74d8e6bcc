#!/usr/bin/env python3
"""Results of bench/pingpong/syscalls-per-round-trip.sh (standard library only).

  report.py line RAW RUN_DIR        one line about one run (printed after each run)
  report.py summary RAW [OUT.md]    per-variant medians and per-pair ratios to
                                    stdout; with OUT.md also the page and OUT.csv
"""

import math
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import report as R  # noqa: E402

EVENTS = {
    "task-clock": "task_ms",
    "context-switches": "cs",
    "syscalls:sys_enter_epoll_ctl": "epoll_ctl",
    "syscalls:sys_enter_epoll_wait": "epoll_wait",
    "syscalls:sys_enter_read": "read",
    "syscalls:sys_enter_write": "write",
    "raw_syscalls:sys_enter": "syscalls",
}
# counted since 2026-12-05 (sockets read with recvmsg to learn what is left
# queued, TCP_INQ); runs recorded before have none
OPTIONAL_EVENTS = {
    "syscalls:sys_enter_recvmsg": "recvmsg",
}


def counts_timed_part(cfg):
    """True if perf counted the timed round trips only (ping-pong with a warm-up)."""
    return int(cfg.get("warmup_round_trips", "0")) > 0


def load_run(raw, d, cfg):
    windowed = cfg["cell"] in ("waiting-client", "compute", "bulk") or counts_timed_part(cfg)
    out = {}
    with open(os.path.join(d, "out.log"), encoding="utf-8") as f:
        for line in f:
            k, _, v = line.partition(":")
            out[k.strip()] = v.strip()
    if cfg["cell"] == "waiting-client":
        ops, rate, secs = float(out["requests"]), float(out["requests/s"]), float(out["seconds"])
    elif cfg["cell"] == "compute":
        ops, rate, secs = float(out["tasks"]), float(out["tasks/s"]), float(out["seconds"])
    elif cfg["cell"] == "bulk":
        ops, rate, secs = float(out["MiB"]), float(out["MiB/s"]), float(out["seconds"])
    else:
        ops, rate = float(out["round trips"]), float(out["round trips/s"])
        secs = ops / rate if rate else float("nan")
    if ops <= 0:
        raise R.DataError(f"{d}: no operations counted")
    perf = R.read_perf_csv(os.path.join(d, "perf.csv"), EVENTS, OPTIONAL_EVENTS)
    r = {"ops": ops, "rate": rate, "seconds": secs}
    for ev, k in {**EVENTS, **OPTIONAL_EVENTS}.items():
        r[k] = perf.get(ev, float("nan"))  # n/a: not counted
        r[k + "_per_op"] = r[k] / ops
    # a read of a socket is a read or a recvmsg call
    reads = r["read"] + (0.0 if math.isnan(r["recvmsg"]) else r["recvmsg"])
    r["reads_per_op"] = reads / ops
    r["cpu_us_per_op"] = perf["task-clock"] * 1000.0 / ops
    r["cpu_util"] = perf["task-clock"] / 1000.0 / secs if windowed else float("nan")
    r["cpu_ms_per_op"] = perf["task-clock"] / ops
    r["read_bytes"] = ops * 1048576.0 / reads if reads else float("nan")
    return r


def load_all(raw):
    cfg = R.read_kv(os.path.join(raw, "config.env"))
    meta = R.read_kv(os.path.join(raw, "meta.env"))
    variants = R.read_table(os.path.join(raw, "variants.tsv"), "\t")
    runs = []
    for row in R.read_table(os.path.join(raw, "runs.tsv"), "\t"):
        r = load_run(raw, os.path.join(raw, row["dir"]), cfg)
        r.update({"pair": row["pair"], "variant": row["variant"], "load1_before": row["load1_before"],
                  "psi10_before": row["psi10_before"], "busy_before": row["busy_before"],
                  "load1_after": row["load1_after"], "psi_run_pct": row["psi_run_pct"],
                  "cpu_speed_ms": row.get("cpu_speed_ms") or "n/a"})
        runs.append(r)
    return cfg, meta, variants, runs


METRICS = [
    ("rate", "ops/s", R.fmt),
    ("cpu_us_per_op", "CPU µs/op", R.fmt),
    ("cs_per_op", "context switches/op", R.fmt),
    ("epoll_ctl_per_op", "epoll_ctl/op", R.fmt),
    ("epoll_wait_per_op", "epoll_wait/op", R.fmt),
    ("reads_per_op", "reads/op (read + recvmsg)", R.fmt),
    ("recvmsg_per_op", "recvmsg/op", R.fmt),
    ("write_per_op", "write/op", R.fmt),
    ("syscalls_per_op", "all syscalls/op", R.fmt),
]


def metrics(cfg):
    if cfg["cell"] == "waiting-client":
        m = [(k, t.replace("/op", "/request").replace("ops/s", "requests/s"), f) for k, t, f in METRICS]
        return m + [("cpu_util", "client CPU (cores)", R.fmt)]
    if cfg["cell"] == "bulk":
        m = [(k, t.replace("µs/op", "ms/MiB").replace("/op", "/MiB").replace("ops/s", "MiB/s"), f)
             for k, t, f in METRICS]
        m = [("cpu_ms_per_op", t, f) if k == "cpu_us_per_op" else (k, t, f) for k, t, f in m]
        return m + [("read_bytes", "bytes/read", R.fmt), ("cpu_util", "client CPU (cores)", R.fmt)]
    if cfg["cell"] == "compute":
        m = [(k, t.replace("/op", "/task").replace("ops/s", "tasks/s"), f) for k, t, f in METRICS
             if k in ("rate", "cpu_us_per_op", "cs_per_op", "epoll_wait_per_op", "syscalls_per_op")]
        return m + [("cpu_util", "CPU (cores)", R.fmt)]
    if counts_timed_part(cfg):
        return METRICS + [("cpu_util", "CPU (cores)", R.fmt)]
    return METRICS


def line(raw, d):
    cfg = R.read_kv(os.path.join(raw, "config.env"))
    r = load_run(raw, d, cfg)
    name = os.path.basename(d.rstrip("/"))
    print(f"  {name}: {r['rate']:,.0f} ops/s, {r['cpu_us_per_op']:.2f} CPU µs/op, "
          f"epoll_ctl {r['epoll_ctl_per_op']:.3f}/op, epoll_wait {r['epoll_wait_per_op']:.3f}/op, "
          f"syscalls {r['syscalls_per_op']:.3f}/op, ctx switches {r['cs_per_op']:.3f}/op", flush=True)


def page(cfg, meta, variants, runs, out):
    names = [v["name"] for v in variants]
    waiting = cfg["cell"] == "waiting-client"
    compute = cfg["cell"] == "compute"
    bulk = cfg["cell"] == "bulk"
    npairs = R.pair_count(runs, names)
    stem = os.path.splitext(os.path.basename(out))[0] if out else "results"
    if waiting:
        title = "Waiting client: syscalls and CPU per request, " + " vs ".join(names)
    elif compute:
        title = "No I/O: CPU-bound virtual threads, " + " vs ".join(names)
    elif bulk:
        title = "Bulk reads: syscalls and CPU per MiB read, " + " vs ".join(names)
    else:
        title = "Ping-pong: syscalls and CPU per round trip, " + " vs ".join(names)
    L = R.header_lines(meta, title, "bench/pingpong/syscalls-per-round-trip.sh", npairs,
                       ", ".join(f"{v['name']} = `{v['opts']}`" for v in variants),
                       [f"Extra JVM options for every variant: `{cfg.get('jvm_args') or 'none'}`"])
    L += ["## Method", ""]
    if waiting:
        L.append(f"- The JVM under test runs `WaitingClient` pinned to CPU {cfg['client_cpu']} "
                 f"(`taskset`, so the virtual-thread scheduler has parallelism 1): {cfg['clients']} "
                 f"virtual threads, each with a `java.net.Socket`, write a {cfg['size']}-byte request "
                 "and block reading the 1-byte reply"
                 + (f" through a `BufferedInputStream` of {cfg['read_buffer']} bytes (so each read of a reply is short)."
                    if int(cfg.get('read_buffer', '0') or 0) > 0 else " (one-byte reads)."))
        L.append(f"- The peer (`DelayPeer.java`, source launcher on `{cfg['peer_version']}`, CPU "
                 f"{cfg['peer_cpu']}, one platform thread busy-polling `Selector.selectNow()`) answers "
                 + (f"each request {cfg['delay_us']} µs after it arrived" if cfg.get('delay_dist', 'fixed') == 'fixed'
                  else f"each request after a delay drawn from the exponential distribution of mean {cfg['delay_us']} µs")
                 + " (a queue of due times drained against `System.nanoTime()`). Its CPU is not measured.")
        L.append(f"- `perf stat -e {cfg['events']}` runs the client JVM with its counters off; the "
                 f"client switches them on after {cfg['warmup']} s of warmup and off after "
                 f"{cfg['duration']} s (perf's control FIFO), and the counts are divided by the "
                 "requests completed in that window. *client CPU (cores)* = task-clock ÷ window: "
                 "near 1.0 the client never idled (too many clients for the delay; lower "
                 "`--clients` or raise `--delay-us`), and context switches per request show how "
                 "often it did.")
    elif bulk:
        L.append(f"- The JVM under test runs `BulkReader` pinned to CPU {cfg['client_cpu']} "
                 f"(`taskset`, so the virtual-thread scheduler has parallelism 1): {cfg['clients']} "
                 "virtual thread(s), each with a `java.net.Socket`, read with "
                 f"{cfg['read_buffer']}-byte reads.")
        L.append(f"- The peer (`BulkPeer.java`, source launcher on `{cfg['peer_version']}`, CPU "
                 f"{cfg['peer_cpu']}) streams to every connection with {cfg['chunk']}-byte writes, "
                 "a platform thread per connection, "
                 + (f"at {cfg['rate']} MiB/s per connection (it sleeps when ahead, so MiB/s is "
                    "the peer's and CPU and counts per MiB are what to compare). "
                    if float(cfg.get("rate", "0")) > 0 else "as fast as the connection takes them. ")
                 + "Its CPU is not measured.")
        L.append(f"- `perf stat -e {cfg['events']}` runs the reader JVM with its counters off; the "
                 f"reader switches them on after {cfg['warmup']} s of warmup and off after "
                 f"{cfg['duration']} s (perf's control FIFO), and the counts are divided by the "
                 "MiB read in that window (*bytes/read* = bytes ÷ `read` calls of the process). "
                 "*client CPU (cores)* = task-clock ÷ window.")
    elif compute:
        L.append(f"- `ComputeTasks.java`: {cfg['roots']} driver virtual threads each run fork/join "
                 f"trees of depth {cfg['depth']}, one after another: a node starts a virtual thread "
                 "for each child and joins both; a leaf (a *task*) computes "
                 f"{cfg['leaf_iters']} steps of an integer hash. No sockets, no files.")
        L.append(f"- `perf stat -e {cfg['events']}` runs the JVM with its counters off; the "
                 f"program switches them on after {cfg['warmup']} s of warmup and off after "
                 f"{cfg['duration']} s (perf's control FIFO), and the counts are divided by the "
                 "leaf tasks completed in that window. *CPU (cores)* = task-clock ÷ window.")
    else:
        if cfg.get("echo_peer", "jvm") == "process":
            where = ("in a process of its own (`PingPong.java --serve`, source launcher on "
                     f"`{cfg['peer_version']}`, not pinned to a CPU). Its CPU and its context "
                     "switches are not counted")
        elif cfg.get("echo_peer") == "pinned":
            where = ("in a process of its own (`PingPong.java --serve`, source launcher on "
                     f"`{cfg['peer_version']}`) pinned to CPU {cfg['peer_cpu']}, the clients' JVM "
                     f"pinned to CPU {cfg['client_cpu']} (`taskset`). The server's CPU and its "
                     "context switches are not counted")
        else:
            where = "in the same JVM (a platform thread), counted with it"
        L.append(f"- `PingPong.java`: {cfg['clients']} virtual-thread clients, each with a "
                 f"`java.net.Socket`, do {cfg['round_trips']} 1-byte blocking round trips each "
                 f"against a one-thread `Selector` echo server {where}.")
        if counts_timed_part(cfg):
            L.append(f"- Each client first does {cfg['warmup_round_trips']} untimed round trips; once all "
                     f"have, they start their timed ones together. `perf stat -e {cfg['events']}` runs "
                     "the client JVM with its counters off, and the program switches them on for the "
                     "timed round trips only (perf's control FIFO): no JVM start-up, no connects. Each "
                     "count is divided by the timed round trips; ops/s is the program's own rate over "
                     "them (perf attached), *CPU (cores)* = task-clock ÷ their wall time.")
        else:
            L.append(f"- `perf stat -e {cfg['events']}` over the whole client process (JVM start-up "
                     "included); each count is divided by the round trips the program reports. "
                     "ops/s is the program's own rate (perf attached).")
    L.append(f"- Variants alternate within each pair ({' '.join(names)}, then again), "
             f"{npairs} pairs; each run is a fresh JVM. The load guard (bench/README.md) "
             "checked the machine before the first run and between runs; each run's load "
             "average and CPU pressure are in the CSV.")
    L.append("")
    L += ["## Results", ""]
    L += R.stamp_lines(meta)
    L.append(R.ratio_note(names))
    L.append("")
    L += R.paired_table(runs, names, metrics(cfg))
    L.append("")
    L += ["## All runs, in execution order", ""]
    L += R.stamp_lines(meta)
    L.append("*CPU speed*: the guard's fixed awk loop, run once on each CPU just before "
             "the run, in ms per CPU (CPU 0/CPU 1/...; a VM's CPUs may change speed between "
             "runs: times and rates follow it, counts do not).")
    L.append("")
    L.append("| pair | variant | ops/s | CPU µs/op | ctx sw/op | epoll_ctl/op | syscalls/op "
             "| load1 before | PSI avg10 before | CPU speed (ms) |")
    L.append("|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for r in runs:
        L.append(f"| {r['pair']} | {r['variant']} | {R.fmt(r['rate'])} | {R.fmt(r['cpu_us_per_op'])} "
                 f"| {R.fmt(r['cs_per_op'])} | {R.fmt(r['epoll_ctl_per_op'])} "
                 f"| {R.fmt(r['syscalls_per_op'])} | {r['load1_before']} | {r['psi10_before']} "
                 f"| {r['cpu_speed_ms']} |")
    L.append("")
    L.append(f"Per-run values: [`{stem}.csv`]({stem}.csv).")
    return L


CSV_FIELDS = (["pair", "variant", "ops", "seconds", "rate", "cpu_us_per_op", "cpu_util"]
              + [k + "_per_op" for k in EVENTS.values()] + list(EVENTS.values())
              + ["cpu_ms_per_op", "read_bytes"]
              + ["load1_before", "psi10_before", "busy_before", "load1_after", "psi_run_pct", "cpu_speed_ms",
                 "machine_busy"])


def summary(raw, out=None):
    cfg, meta, variants, runs = load_all(raw)
    names = [v["name"] for v in variants]
    for r in runs:
        r["machine_busy"] = meta.get("machine_busy", "0")
    print()
    if R.busy(meta):
        print(f"*** {R.BUSY_STAMP} ***")
    print("\n".join(R.paired_table(runs, names, metrics(cfg))))
    R.write_csv(os.path.join(raw, "results.csv"), runs, CSV_FIELDS)
    if out:
        R.write_csv(os.path.splitext(out)[0] + ".csv", runs, CSV_FIELDS)
        R.write_page(out, page(cfg, meta, variants, runs, out))


def main(argv):
    try:
        if len(argv) == 4 and argv[1] == "line":
            line(argv[2], argv[3])
        elif len(argv) in (3, 4) and argv[1] == "summary":
            summary(argv[2], argv[3] if len(argv) == 4 else None)
        else:
            print(__doc__, file=sys.stderr)
            return 2
    except (R.DataError, OSError, KeyError, ValueError) as e:
        print(f"pingpong/report.py: error: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
