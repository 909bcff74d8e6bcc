"""Shared report code for every benchmark page (Python standard library only).

Used by bench/micro/report.py, bench/pingpong/report.py, bench/e2e/report.py and
bench/apps/report.py:
paired statistics (per-pair ratio against the baseline variant, median and
min-max), Markdown tables, the page header (machine, JDK, command, date, load
before/after, pairs, busy-machine stamp), CSV and SVG plots.
"""

import csv
import math
import os
import re
import statistics

BUSY_STAMP = "measured on a busy machine"


class DataError(Exception):
    pass


# ------------------------------------------------------------------ files

def read_kv(path):
    d = {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.rstrip("\n")
            if "=" in line:
                k, v = line.split("=", 1)
                d[k] = v
    return d


def read_table(path, delimiter=","):
    with open(path, newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f, delimiter=delimiter))


def write_csv(path, rows, fields):
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    with open(path, "w", newline="", encoding="utf-8") as f:
        w = csv.DictWriter(f, fieldnames=fields, extrasaction="ignore", lineterminator="\n")
        w.writeheader()
        for r in rows:
            w.writerow({k: ("" if isinstance(v, float) and math.isnan(v) else f"{v:.6g}" if isinstance(v, float) else v)
                        for k, v in r.items()})


def read_perf_csv(path, events, optional=()):
    """perf stat -x, output -> {event: count}; every event in EVENTS must be there,
    those in optional may be missing (runs recorded before they were counted)."""
    out = {}
    with open(path, encoding="utf-8") as f:
        for row in csv.reader(f):
            if not row or row[0].startswith("#") or len(row) < 3:
                continue
            value, event = row[0], row[2]
            if event.endswith(":u"):
                event = event[:-2]
            if event not in events and event not in optional:
                continue
            if value.startswith("<"):
                raise DataError(f"{path}: event {event} was {value}")
            out[event] = float(value)
    missing = [e for e in events if e not in out]
    if missing:
        raise DataError(f"{path}: events missing from perf output: {', '.join(missing)}")
    return out


# ------------------------------------------------------------------ numbers

def clean(values):
    return [v for v in values if v is not None and not (isinstance(v, float) and math.isnan(v))]


def stats(values):
    """(median, min, max, n) or None."""
    vals = clean(values)
    if not vals:
        return None
    return (statistics.median(vals), min(vals), max(vals), len(vals))


def fmt(x):
    """A number with about 3 significant digits."""
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


def fixed(decimals):
    def f(x):
        if x is None or (isinstance(x, float) and math.isnan(x)):
            return "n/a"
        return f"{x:,.{decimals}f}"
    return f


def fmt_stat(st, f=fmt):
    if st is None:
        return "n/a"
    med, lo, hi, _ = st
    if lo == hi:
        return f(med)
    return f"{f(med)} [{f(lo)}–{f(hi)}]"


def fmt_ratio(st):
    """Per-pair ratios: median [min–max], 3 decimals."""
    return fmt_stat(st, fixed(3))


def paired_ratios(runs, key, variant, baseline):
    """variant/baseline within each pair (runs: dicts with 'variant', 'pair', key)."""
    by = {}
    for r in runs:
        by.setdefault(r["pair"], {})[r["variant"]] = r
    out = []
    for pair in sorted(by, key=lambda p: int(p)):
        a, b = by[pair].get(baseline), by[pair].get(variant)
        if a is None or b is None:
            continue
        x, y = a.get(key), b.get(key)
        if x is None or y is None or (isinstance(x, float) and math.isnan(x)) or x == 0:
            continue
        out.append(y / x)
    return out


def paired_table(runs, variants, metrics, label="variant"):
    """Markdown table: one row per variant (median [min–max] over its runs), then
    one row per other variant with its per-pair ratio to the first (baseline).

    metrics: list of (key, title, formatter)."""
    base = variants[0]
    lines = ["| " + label + " | " + " | ".join(m[1] for m in metrics) + " |",
             "|---|" + "---:|" * len(metrics)]
    for v in variants:
        vr = [r for r in runs if r["variant"] == v]
        if not vr:
            continue
        lines.append(f"| {v} | " + " | ".join(fmt_stat(stats([r.get(k) for r in vr]), f)
                                             for k, _, f in metrics) + " |")
    for v in variants[1:]:
        cells = [fmt_ratio(stats(paired_ratios(runs, k, v, base))) for k, _, _ in metrics]
        lines.append(f"| **{v} ÷ {base}** (per pair) | " + " | ".join(cells) + " |")
    return lines


def pair_count(runs, variants):
    """Number of pairs in which every variant has a run."""
    by = {}
    for r in runs:
        by.setdefault(r["pair"], set()).add(r["variant"])
    return sum(1 for s in by.values() if all(v in s for v in variants))


# ------------------------------------------------------------------ page

def busy(meta):
    return meta.get("machine_busy") == "1"


def stamp_lines(meta):
    """The busy-machine stamp: put before every table."""
    if not busy(meta):
        return []
    return [f"> **{BUSY_STAMP}** (run with `--allow-busy`; what was busy: see the top of the page)", ""]


CPU_SPEED_SPREAD_WARN = 1.5


def cpu_speed_spread(meta):
    """Slowest over fastest run of bench_cpu_speed's loop, before and after
    together; None if it was not measured."""
    times = []
    for k in ("cpu_speed_start", "cpu_speed_end"):
        m = re.fullmatch(r"(\d+)-(\d+) ms", meta.get(k, ""))
        if m:
            times += [int(m.group(1)), int(m.group(2))]
    return max(times) / min(times) if times and min(times) > 0 else None


def header_lines(meta, title, runner, pairs, variants_desc=None, extra_machine=()):
    """Title, busy stamp, and the sections every page carries: what, command,
    machine and JDK, load before/after, pairs."""
    L = [f"# {title}", ""]
    if busy(meta):
        L += [f"**Warning: {BUSY_STAMP}.** The load guard found the machine busy and the run "
              f"went on because of `--allow-busy`; treat every number below as unreliable. "
              f"What was busy: {meta.get('busy_notes', '?')}", ""]
    L += [f"Generated by `{runner}` from {meta.get('date_start', '?')} to {meta.get('date_end', '?')}. "
          "Every number below comes from that run; its raw files stay under `build/` (not in git) "
          "and are regenerated by the command below.", ""]
    L += ["## Command", "", "```", meta.get("command", "?"), "```", ""]
    L += ["## Machine and JDK", ""]
    L.append(f"- CPUs (nproc): {meta.get('nproc', '?')}; CPU: {meta.get('cpu', '?')}; "
             f"memory: {meta.get('memory', '?')}")
    L.append(f"- Kernel: {meta.get('kernel', '?')}")
    def pct(v):
        return v + "%" if v and v[0].isdigit() else (v or "?")
    L.append(f"- Load average (1, 5, 15 min) before: {meta.get('load_start', '?')}; "
             f"after: {meta.get('load_end', '?')}; CPU pressure (PSI some avg10) before: "
             f"{pct(meta.get('psi_start'))}, after: {pct(meta.get('psi_end'))}")
    L.append(f"- JDK under test: `{meta.get('java_version', '?')}`, {meta.get('java_runtime', '?')}")
    if "cpu_speed_start" in meta:
        L.append(f"- CPU speed (a fixed awk loop pinned to each CPU, 3 times, ms per loop): before "
                 f"{meta.get('cpu_speed_start')}, after {meta.get('cpu_speed_end', '?')}")
        spread = cpu_speed_spread(meta)
        if spread is not None and spread > CPU_SPEED_SPREAD_WARN:
            L.append(f"- **The CPUs changed speed: the same loop took up to {spread:.1f} × as long "
                     "in one run as in another.** Times and rates vary with it; counts do not.")
    for x in extra_machine:
        L.append(f"- {x}")
    L.append(f"- Pairs: {pairs}" + (f"; variants: {variants_desc}" if variants_desc else ""))
    L.append(f"- Repository: {meta.get('git', '?')}")
    L.append("")
    return L


def ratio_note(variants):
    return (f"Rows are median [min–max] over the runs; the **÷ {variants[0]}** rows are the ratio "
            f"within each pair (variants alternate inside a pair), then median [min–max] over the "
            f"pairs. Below 1 means the variant needs less than {variants[0]} (or, for a rate, is slower).")


def write_page(path, lines):
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(lines).rstrip("\n") + "\n")


# ------------------------------------------------------------------ SVG

PALETTE = ["#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b",
           "#e377c2", "#17becf"]


def _nice_step(span, target=6):
    if span <= 0:
        return 1.0
    raw = span / target
    mag = 10 ** math.floor(math.log10(raw))
    for m in (1, 2, 2.5, 5, 10):
        if raw <= m * mag:
            return m * mag
    return 10 * mag


def _esc(s):
    return (str(s).replace("&", "&amp;").replace("<", "&lt;")
            .replace(">", "&gt;").replace('"', "&quot;"))


def _svg_frame(W, H, title, busy_flag):
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" '
           f'viewBox="0 0 {W} {H}" font-family="sans-serif" font-size="12">',
           f'<rect width="{W}" height="{H}" fill="white"/>',
           f'<text x="{W / 2}" y="20" text-anchor="middle" font-size="14" '
           f'font-weight="bold">{_esc(title)}</text>']
    if busy_flag:
        out.append(f'<text x="{W / 2}" y="36" text-anchor="middle" fill="#c00" '
                   f'font-weight="bold">{BUSY_STAMP}</text>')
    return out


DASHES = [False, "6,4", "2,3", "8,3,2,3"]


def svg_chart(path, title, xlabel, ylabel, xlabels, series, busy_flag=False):
    """Line chart with min-max bars on categorical x positions.

    series: list of (label, color, dashed, [stats tuple or None per x]);
    dashed: False, True or an SVG dash array such as DASHES[i]."""
    W, H = 760, 430
    L, R, T, B = 80, 210, 46, 60
    pw, ph = W - L - R, H - T - B
    his = [st[2] for _, _, _, pts in series for st in pts if st is not None]
    ymax = max(his) if his else 1.0
    if ymax <= 0:
        ymax = 1.0
    step = _nice_step(ymax * 1.05)
    ytop = step * math.ceil(ymax * 1.05 / step)
    n = max(1, len(xlabels))

    def xpos(i):
        return L + (pw * (i + 0.5) / n)

    def ypos(v):
        return T + ph - (v / ytop) * ph

    out = _svg_frame(W, H, title, busy_flag)
    k = 0
    while k * step <= ytop + step / 1000:
        v = k * step
        y = ypos(v)
        out.append(f'<line x1="{L}" y1="{y:.1f}" x2="{L + pw}" y2="{y:.1f}" stroke="#ddd"/>')
        label = f"{v:,.0f}" if step >= 1 else f"{v:.{max(0, -math.floor(math.log10(step)) + 1)}f}"
        out.append(f'<text x="{L - 6}" y="{y + 4:.1f}" text-anchor="end">{_esc(label)}</text>')
        k += 1
    out.append(f'<line x1="{L}" y1="{T}" x2="{L}" y2="{T + ph}" stroke="black"/>')
    out.append(f'<line x1="{L}" y1="{T + ph}" x2="{L + pw}" y2="{T + ph}" stroke="black"/>')
    for i, xl in enumerate(xlabels):
        out.append(f'<text x="{xpos(i):.1f}" y="{T + ph + 18}" text-anchor="middle">{_esc(xl)}</text>')
    out.append(f'<text x="{L + pw / 2}" y="{H - 15}" text-anchor="middle">{_esc(xlabel)}</text>')
    out.append(f'<text x="18" y="{T + ph / 2}" text-anchor="middle" '
               f'transform="rotate(-90 18 {T + ph / 2})">{_esc(ylabel)}</text>')
    nser = max(1, len(series))
    for si, (label, color, dashed, pts) in enumerate(series):
        off = (si - (nser - 1) / 2) * min(6, pw / n / (nser + 1))
        dash = (f' stroke-dasharray="{dashed}"' if isinstance(dashed, str)
                else ' stroke-dasharray="6,4"' if dashed else "")
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
            fill = "white" if dashed else color  # open dot: any dashed line
            out.append(f'<circle cx="{x:.1f}" cy="{ypos(st[0]):.1f}" r="3.5" fill="{fill}" '
                       f'stroke="{color}" stroke-width="1.5"/>')
        ly = T + 10 + si * 20
        out.append(f'<line x1="{L + pw + 15}" y1="{ly}" x2="{L + pw + 45}" y2="{ly}" '
                   f'stroke="{color}" stroke-width="2"{dash}/>')
        out.append(f'<text x="{L + pw + 52}" y="{ly + 4}">{_esc(label)}</text>')
    out.append(f'<text x="{L + pw + 15}" y="{T + 10 + nser * 20 + 10}" fill="#555">'
               f'median, bar = min–max</text>')
    out.append("</svg>")
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(out) + "\n")


def svg_percentiles(path, title, curves, busy_flag=False):
    """Latency percentile plot, x = percentile on a 1/(1-p) log scale, y = ms
    (log scale when the values span more than 20x).

    curves: list of (label, color, dashed, [(percentile 0..1, value ms)])."""
    W, H = 820, 460
    L, R, T, B = 80, 200, 46, 60
    pw, ph = W - L - R, H - T - B
    pts_all = [(1.0 / (1.0 - p), v) for _, _, _, pts in curves for p, v in pts if p < 1.0]
    xmax = max([x for x, _ in pts_all] + [10.0])
    vals = [v for _, v in pts_all if v > 0]
    ymin, ymax = (min(vals), max(vals)) if vals else (1.0, 10.0)
    ylog = ymin > 0 and ymax / ymin > 20

    def xpos(x):
        return L + pw * math.log10(max(x, 1.0)) / math.log10(xmax * 1.2)

    if ylog:
        lo, hi = math.floor(math.log10(ymin)), math.ceil(math.log10(ymax))

        def ypos(v):
            return T + ph - ph * (math.log10(max(v, 10 ** lo)) - lo) / max(hi - lo, 1)
        yticks = [m * 10 ** e for e in range(lo, hi + 1) for m in (1, 2, 5) if m * 10 ** e <= 10 ** hi]
    else:
        step = _nice_step(ymax * 1.05)
        top = step * math.ceil(ymax * 1.05 / step)

        def ypos(v):
            return T + ph - ph * v / top
        yticks = [i * step for i in range(int(round(top / step)) + 1)]
    out = _svg_frame(W, H, title, busy_flag)
    for v in yticks:
        y = ypos(v)
        out.append(f'<line x1="{L}" y1="{y:.1f}" x2="{L + pw}" y2="{y:.1f}" stroke="#ddd"/>')
        out.append(f'<text x="{L - 6}" y="{y + 4:.1f}" text-anchor="end">{v:g}</text>')
    for x, lab in ((1, "0%"), (2, "50%"), (10, "90%"), (100, "99%"), (1000, "99.9%"),
                   (10000, "99.99%"), (100000, "99.999%"), (1000000, "99.9999%")):
        if x <= xmax * 1.2:
            out.append(f'<line x1="{xpos(x):.1f}" y1="{T}" x2="{xpos(x):.1f}" y2="{T + ph}" stroke="#eee"/>')
            out.append(f'<text x="{xpos(x):.1f}" y="{T + ph + 18}" text-anchor="middle">{lab}</text>')
    out.append(f'<rect x="{L}" y="{T}" width="{pw}" height="{ph}" fill="none" stroke="black"/>')
    out.append(f'<text x="{L + pw / 2}" y="{H - 15}" text-anchor="middle">percentile</text>')
    out.append(f'<text x="18" y="{T + ph / 2}" text-anchor="middle" transform="rotate(-90 18 '
               f'{T + ph / 2})">latency from intended send time (ms)</text>')
    for ci, (label, color, dashed, pts) in enumerate(curves):
        c = [(xpos(1.0 / (1.0 - p)), ypos(v)) for p, v in pts if p < 1.0 and (v > 0 or not ylog)]
        dash = ' stroke-dasharray="6,4"' if dashed else ""
        if len(c) > 1:
            d = " ".join(f"{x:.1f},{y:.1f}" for x, y in c)
            out.append(f'<polyline points="{d}" fill="none" stroke="{color}" stroke-width="1.5"{dash}/>')
        ly = T + 10 + ci * 18
        out.append(f'<line x1="{L + pw + 12}" y1="{ly}" x2="{L + pw + 40}" y2="{ly}" '
                   f'stroke="{color}" stroke-width="2"{dash}/>')
        out.append(f'<text x="{L + pw + 46}" y="{ly + 4}">{_esc(label)}</text>')
    if not curves:
        out.append(f'<text x="{L + pw / 2}" y="{T + ph / 2}" text-anchor="middle">no measured responses</text>')
    out.append("</svg>")
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(out) + "\n")
