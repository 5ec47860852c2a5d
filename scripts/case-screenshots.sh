#!/bin/sh
# The case sheet as LibreOffice draws it, for docs/case.md: examples/nfs-vs-fc-70k-iops.json through
# `caplab case`, converted to PDF by soffice, rendered by pdftoppm and cropped (Python Pillow) to the
# top of page 1 (title, conclusion, recommendation, costs) and to the tornado chart (found by its frame).
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
w = x1 - x0
px = im.load()
def gray(p):
    return 180 < p[0] < 240 and max(p) - min(p) < 8
# The chart's frame: rows where a light-grey line spans over 40 % of the content's width.
lines = [y for y in range(y0, y1) if sum(gray(px[x, y]) for x in range(x0, x1, 2)) * 2 > 0.4 * w]
if not lines:
    sys.exit("no chart frame found on page 1")
top, bottom = lines[0], lines[-1]
xs = [x for x in range(x0, x1) if gray(px[x, top])]
im.crop((x0, y0, x1, top - 10)).save(out + "/case-sheet-top.png", optimize=True)
im.crop((min(xs), top, max(xs) + 1, bottom + 1)).save(out + "/case-sheet-tornado.png", optimize=True)
PY
rm -rf "$tmp"
echo "wrote $out/case-sheet-top.png $out/case-sheet-tornado.png"
