#!/usr/bin/env bash
# Builds the DocC catalog (Sources/CheckoutKit/CheckoutKit.docc) offline with the toolchain's own
# `docc`, from CheckoutKit's symbol graph, into .build/docs. Any warning fails the build: a link to
# an article or a symbol that does not exist, a picture missing from the catalog's Resources/.
# Needs a debug build of CheckoutKit (`make docs` builds it first).
set -euo pipefail
cd "$(dirname "$0")/.."
toolchain="$(dirname "$(readlink -f "$(command -v swift)")")"
graphs=.build/symbol-graphs
rm -rf "$graphs" .build/docs
mkdir -p "$graphs"
maps=()
for map in Sources/C*/module.modulemap; do maps+=(-Xcc "-fmodule-map-file=$PWD/$map"); done
swift symbolgraph-extract -module-name CheckoutKit -I .build/debug/Modules "${maps[@]}" \
    -target "$(uname -m)-unknown-linux-gnu" -minimum-access-level public -output-dir "$graphs"
"$toolchain/docc" convert Sources/CheckoutKit/CheckoutKit.docc --additional-symbol-graph-dir "$graphs" \
    --output-path .build/docs --fallback-display-name CheckoutKit \
    --fallback-bundle-identifier dev.checkoutkit.CheckoutKit --warnings-as-errors
echo "documentation: .build/docs (open .build/docs/index.html through a web server, or browse the Markdown)"
