#!/usr/bin/env python3
"""Charts of checkout-bench's scaling section (`--only scaling --json FILE`).

Reads the figures named `scaling.<series>_at_<size>` and writes one PNG per chart below: the
measured points against the size on a logarithmic x axis, with the ideal growth drawn from the
smallest size (flat: the same cost; linear: the cost times the size ratio).

    usage: plot-scaling.py BENCH_JSON OUTPUT_DIR    (scripts/plot-scaling.sh installs matplotlib)
"""
import json
import re
import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

NAME = re.compile(r"^scaling\.(?P<series>[a-z0-9_]+)_at_(?P<size>\d+)$")

# file -> (title, x label, [(series, label, growth)]); growth is "flat" or "linear".
CHARTS = {
    "scaling-vault.png": ("Local vault: list 20 of one customer, save one", "rows in the store",
                          [("vault_list", "list 20", "flat"), ("vault_save", "save one (with outbox)", "flat")]),
    "scaling-feed.png": ("Server change feed: one customer's 20-change page", "stored instruments (10k customers)",
                         [("feed_latency", "p50 latency", "flat")]),
    "scaling-sync.png": ("Sync: initial pull over HTTP (loopback)", "instruments pulled",
                         [("sync_pull", "pull time", "linear")]),
    "scaling-sessions.png": ("Sessions: ready sessions held at once", "sessions",
                             [("session_start", "time to start all", "linear"),
                              ("session_memory", "memory per session", "flat")]),
    "scaling-theme.png": ("Theme resolution, alias chains of depth 10", "tokens",
                          [("theme_resolve", "one resolution", "linear")]),
}


def series_points(figures):
    """{series: ([sizes], [values], unit)} from the section's figures."""
    found = {}
    for figure in figures:
        match = NAME.match(figure.get("name", ""))
        if not match or figure.get("value") is None:
            continue
        sizes, values, _ = found.setdefault(match["series"], ([], [], figure.get("unit", "")))
        sizes.append(int(match["size"]))
        values.append(float(figure["value"]))
    for name, (sizes, values, unit) in list(found.items()):
        order = sorted(range(len(sizes)), key=sizes.__getitem__)
        found[name] = ([sizes[i] for i in order], [values[i] for i in order], unit)
    return found


def ideal(sizes, values, growth):
    if growth == "flat":
        return [values[0]] * len(sizes)
    return [values[0] * size / sizes[0] for size in sizes]


def size_label(size):
    if size >= 1_000_000 and size % 1_000_000 == 0:
        return f"{size // 1_000_000}M"
    if size >= 1_000 and size % 1_000 == 0:
        return f"{size // 1_000}k"
    return str(size)


def draw(path, title, xlabel, entries, points, quick):
    panels = [entry for entry in entries if entry[0] in points]
    if not panels:
        return False
    figure, axes = plt.subplots(1, len(panels), figsize=(5.2 * len(panels), 3.8), squeeze=False)
    for axis, (series, label, growth) in zip(axes[0], panels):
        sizes, values, unit = points[series]
        axis.plot(sizes, ideal(sizes, values, growth), linestyle="--", color="0.55",
                  label=f"ideal ({growth}, from {size_label(sizes[0])})")
        axis.plot(sizes, values, marker="o", linewidth=2, color="#1f5fa8", label=f"measured: {label}")
        for size, value in zip(sizes, values):
            axis.annotate(f"{value:,.0f}" if value >= 100 else f"{value:.3g}", (size, value), textcoords="offset points", xytext=(0, 7),
                          ha="center", fontsize=8)
        axis.set_xscale("log")
        if growth == "linear":
            axis.set_yscale("log")
        else:
            top = max(values + ideal(sizes, values, growth))
            axis.set_ylim(0, top * 1.6)
        axis.set_xticks(sizes)
        axis.set_xticklabels([size_label(size) for size in sizes])
        axis.minorticks_off()
        axis.set_xlabel(xlabel)
        axis.set_ylabel(f"{label} ({unit})")
        axis.grid(True, which="major", alpha=0.3)
        axis.legend(fontsize=8, loc="upper left")
    figure.suptitle(title + (" (quick run: tiny sizes)" if quick else ""), fontsize=11)
    figure.tight_layout()
    figure.savefig(path, dpi=110)
    plt.close(figure)
    return True


def main(argv):
    if len(argv) != 3:
        print(__doc__.strip().splitlines()[-1].strip(), file=sys.stderr)
        return 2
    document = json.loads(Path(argv[1]).read_text())
    figures = document.get("sections", {}).get("scaling")
    if not figures:
        print(f"plot-scaling: {argv[1]} has no scaling section (run checkout-bench --only scaling --json FILE)",
              file=sys.stderr)
        return 1
    points = series_points(figures)
    output = Path(argv[2])
    output.mkdir(parents=True, exist_ok=True)
    missing = []
    for name, (title, xlabel, entries) in CHARTS.items():
        if draw(output / name, title, xlabel, entries, points, document.get("quick", False)):
            print(f"wrote {output / name}")
        else:
            missing.append(name)
    if missing:
        print(f"plot-scaling: no figures for {', '.join(missing)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
