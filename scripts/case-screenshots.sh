#!/bin/sh
# The case sheet as LibreOffice draws it, for docs/case.md: examples/nfs-vs-fc-70k-iops.json through
# `caplab case`, converted to PDF by soffice, rendered by pdftoppm and cropped (Python Pillow) to the
# top of the sheet (title, conclusion, recommendation, notes, costs) and to the tornado chart.
# Needs: npm run build:cli, soffice, pdftoppm, python3 with Pillow.
set -e
out=docs/screenshots
tmp=$(mktemp -d)
node bin/caplab.js case examples/nfs-vs-fc-70k-iops.json -o "$tmp/case.xlsx" --html "$tmp/case.html" > /dev/null
soffice -env:UserInstallation="file://$tmp/profile" --headless --convert-to pdf --outdir "$tmp" "$tmp/case.xlsx" > /dev/null 2>&1
pdftoppm -png -r 200 -f 1 -l 1 "$tmp/case.pdf" "$tmp/page"
python3 - "$tmp" "$out" <<'PY'
import sys, glob
from PIL import Image, ImageOps
tmp, out = sys.argv[1], sys.argv[2]
im = Image.open(sorted(glob.glob(tmp + "/page*.png"))[0]).convert("RGB")
x0, y0, x1, y1 = ImageOps.invert(im.convert("L")).getbbox()
w, h = x1 - x0, y1 - y0
im.crop((x0, y0, x0 + int(w * 0.55), y0 + int(h * 0.42))).save(out + "/case-sheet-top.png", optimize=True)
im.crop((x0, y0 + int(h * 0.85), x0 + int(w * 0.205), y1)).save(out + "/case-sheet-tornado.png", optimize=True)
PY
rm -rf "$tmp"
echo "wrote $out/case-sheet-top.png $out/case-sheet-tornado.png"
