#!/usr/bin/env python3
"""Regenerates the preview font: Config/fonts/Inter-{Regular,SemiBold}.woff2 and Config/fonts/metrics.json.

The preview pages (and the layout engine's text measuring) use Inter, an OFL font, subset to the
characters a checkout shows: Latin (Basic, Latin-1, Extended-A), the punctuation and currency signs the
locales format with, and every character of Config/strings/. Layout features (kerning, ligatures,
contextual alternates) are dropped, so a line's width is exactly the sum of its advances; that is
what lets `TextMeasure` in CheckoutTheme predict where Chromium ends a line.

Run once after adding a locale or a string with a new character, then `python3 scripts/embed-config.py`.
Needs: `pip install fonttools brotli`, and Debian's fonts-inter package (downloaded, not installed).
"""
import json
import pathlib
import subprocess
import sys
import tempfile

from fontTools import subset
from fontTools.ttLib import TTFont

ROOT = pathlib.Path(__file__).resolve().parent.parent
OUT = ROOT / "Config" / "fonts"
FACES = {"Regular": 400, "SemiBold": 600}

def characters():
    chars = set(range(0x20, 0x7F)) | set(range(0xA0, 0x180))
    chars |= {0x2013, 0x2014, 0x2018, 0x2019, 0x201A, 0x201C, 0x201D, 0x201E, 0x2022, 0x2026, 0x2039, 0x203A,
              0x202F, 0x2009, 0x20AC, 0x2212, 0x00B7}
    def walk(value):
        if isinstance(value, str):
            chars.update(ord(c) for c in value)
        elif isinstance(value, dict):
            for item in value.values():
                walk(item)
        elif isinstance(value, list):
            for item in value:
                walk(item)
    for path in sorted((ROOT / "Config" / "strings").glob("*.json")):
        walk(json.loads(path.read_text(encoding="utf-8")))
    return sorted(c for c in chars if c >= 0x20)

def source_fonts(work):
    subprocess.run(["apt-get", "download", "fonts-inter"], cwd=work, check=True, capture_output=True)
    deb = next(pathlib.Path(work).glob("fonts-inter_*.deb"))
    subprocess.run(["dpkg-deb", "-x", str(deb), str(pathlib.Path(work) / "x")], check=True)
    return pathlib.Path(work) / "x" / "usr" / "share" / "fonts" / "opentype" / "inter"

def main():
    OUT.mkdir(parents=True, exist_ok=True)
    wanted = characters()
    metrics = {"family": "Inter", "faces": {}}
    with tempfile.TemporaryDirectory() as work:
        fonts = source_fonts(work)
        for face, weight in FACES.items():
            options = subset.Options()
            options.layout_features = []
            options.flavor = "woff2"
            options.name_IDs = ["*"]
            options.notdef_outline = True
            font = TTFont(fonts / f"Inter-{face}.otf")
            subsetter = subset.Subsetter(options)
            subsetter.populate(unicodes=wanted)
            subsetter.subset(font)
            font.save(OUT / f"Inter-{face}.woff2")
            cmap = font.getBestCmap()
            hmtx = font["hmtx"]
            advances = {str(code): hmtx[glyph][0] for code, glyph in sorted(cmap.items())}
            metrics["faces"][str(weight)] = {"advances": advances}
            metrics["unitsPerEm"] = font["head"].unitsPerEm
        (OUT / "metrics.json").write_text(json.dumps(metrics, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    print(f"wrote {len(wanted)} characters into {OUT.relative_to(ROOT)}")

if __name__ == "__main__":
    sys.exit(main())
