#!/usr/bin/env bash
# Draws the Benchmarks guide's "How costs grow" charts from a checkout-bench JSON document that holds the
# scaling section: docs/images/scaling-{vault,feed,sync,sessions,theme}.png.
#   usage: scripts/plot-scaling.sh bench-results/scaling.json [OUTPUT_DIR]
# matplotlib comes from PyPI into a virtual environment under .build/ (made on first use;
# PLOT_VENV overrides where).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
if [ $# -lt 1 ]; then
    echo "usage: scripts/plot-scaling.sh BENCH_JSON [OUTPUT_DIR]" >&2
    exit 2
fi
venv="${PLOT_VENV:-$root/.build/plot-venv}"
if ! "$venv/bin/python" -c "import matplotlib" 2>/dev/null; then
    python3 -m venv "$venv"
    "$venv/bin/pip" install -q "matplotlib==3.9.2"
fi
exec "$venv/bin/python" "$root/scripts/plot-scaling.py" "$1" "${2:-$root/docs/images}"
