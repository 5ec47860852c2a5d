#!/bin/sh
# Page 1 of every example case as printed: caplab case writes the .xlsx, LibreOffice prints it to PDF
# with the file's own page setup, pdftoppm renders page 1 (docs/screenshots/case-print-<example>.png).
# Needs: npm run build:cli, soffice (LibreOffice), pdftoppm (poppler-utils).
set -eu
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
for f in examples/*.json; do
  base=$(basename "$f" .json)
  node bin/caplab.js case "$f" -o "$out/$base.xlsx" > /dev/null
done
soffice -env:UserInstallation="file://$out/profile" --headless --convert-to pdf --outdir "$out" "$out"/*.xlsx > /dev/null
for pdf in "$out"/*.pdf; do
  base=$(basename "$pdf" .pdf)
  pdftoppm -f 1 -l 1 -png -r 60 -singlefile "$pdf" "docs/screenshots/case-print-$base"
done
