/**
 * Draws the add-in's icons into assets/: the add-in icon (icon-16, -32, -64, -80: a blue rounded
 * square with three white bars of rising height under an amber "capacity" line) and one icon per
 * ribbon command (cmd-<name>-16, -32, -80), each its own picture so the buttons tell apart at a
 * glance. Deterministic: the same script always writes the same bytes, so the PNGs in git can be
 * checked against it.
 *
 * Plain Node (zlib for the deflate stream): each pixel is the average of an 8×8 grid of samples,
 * which gives clean anti-aliased edges at 16 px.
 *
 * Usage: tsx scripts/make-icons.ts [outDir]   (default: assets/); `npm run icons`.
 */
import * as fs from "fs";
import * as path from "path";
import * as zlib from "zlib";

type Rgb = [number, number, number];
/** A shape in unit coordinates (0..1, y down), painted in order; a null colour erases to transparent. */
interface Shape {
  color: Rgb | null;
  inside: (x: number, y: number) => boolean;
}

/** Sizes of the add-in icon (IconUrl 32 and HighResolutionIconUrl 64 besides the ribbon's 16/32/80). */
export const SIZES = [16, 32, 64, 80];
/** Sizes of each ribbon command's icon (the manifest's bt:Image sizes). */
export const COMMAND_SIZES = [16, 32, 80];

const BRAND: Rgb = [15, 108, 189]; // Fluent brand blue #0F6CBD
const WHITE: Rgb = [255, 255, 255];
const AMBER: Rgb = [255, 185, 0]; // #FFB900
const GREY: Rgb = [97, 97, 97]; // Fluent neutral foreground 2 #616161
const GREEN: Rgb = [16, 124, 65]; // Excel green #107C41
const BROWN: Rgb = [142, 86, 46]; // #8E562E
const TAN: Rgb = [196, 127, 58]; // #C47F3A

function inRoundedRect(x: number, y: number, x0: number, y0: number, x1: number, y1: number, r: number): boolean {
  if (x < x0 || x > x1 || y < y0 || y > y1) return false;
  const cx = Math.min(Math.max(x, x0 + r), x1 - r);
  const cy = Math.min(Math.max(y, y0 + r), y1 - r);
  return (x - cx) ** 2 + (y - cy) ** 2 <= r * r;
}

const rect = (color: Rgb | null, x0: number, y0: number, x1: number, y1: number, r = 0.03): Shape => ({
  color,
  inside: (x, y) => inRoundedRect(x, y, x0, y0, x1, y1, r),
});
const circle = (color: Rgb | null, cx: number, cy: number, r: number): Shape => ({
  color,
  inside: (x, y) => (x - cx) ** 2 + (y - cy) ** 2 <= r * r,
});
/** A polygon (even-odd rule), corners as [x, y] pairs. */
const polygon = (color: Rgb | null, points: [number, number][]): Shape => ({
  color,
  inside: (x, y) => {
    let inside = false;
    for (let i = 0, j = points.length - 1; i < points.length; j = i++) {
      const [xi, yi] = points[i];
      const [xj, yj] = points[j];
      if (yi > y !== yj > y && x < ((xj - xi) * (y - yi)) / (yj - yi) + xi) inside = !inside;
    }
    return inside;
  },
});

/** The add-in icon: bars under a capacity line. */
const ADDIN: Shape[] = [
  rect(BRAND, 0.03, 0.03, 0.97, 0.97, 0.2),
  rect(WHITE, 0.19, 0.56, 0.35, 0.82),
  rect(WHITE, 0.42, 0.42, 0.58, 0.82),
  rect(WHITE, 0.65, 0.3, 0.81, 0.82),
  rect(AMBER, 0.14, 0.17, 0.86, 0.23),
];

/** The ribbon commands' icons, by the name in their file name (cmd-<name>-<size>.png). */
export const COMMAND_ICONS: Record<string, Shape[]> = {
  // Import lab results: a sheet with green rows, a blue arrow coming down into it.
  import: [
    rect(GREY, 0.12, 0.36, 0.88, 0.97, 0.06),
    rect(WHITE, 0.19, 0.43, 0.81, 0.9, 0.02),
    rect(GREEN, 0.27, 0.58, 0.73, 0.66, 0.01),
    rect(GREEN, 0.27, 0.73, 0.73, 0.81, 0.01),
    rect(BRAND, 0.41, 0.02, 0.59, 0.3, 0.02),
    polygon(BRAND, [
      [0.22, 0.26],
      [0.78, 0.26],
      [0.5, 0.56],
    ]),
  ],
  // New business case: a briefcase with a green plus.
  case: [
    rect(BROWN, 0.32, 0.1, 0.68, 0.36, 0.06),
    rect(null, 0.4, 0.17, 0.6, 0.36, 0.02),
    rect(TAN, 0.04, 0.28, 0.9, 0.82, 0.08),
    rect(BROWN, 0.04, 0.48, 0.9, 0.54, 0),
    circle(WHITE, 0.74, 0.74, 0.27),
    circle(GREEN, 0.74, 0.74, 0.23),
    rect(WHITE, 0.63, 0.7, 0.85, 0.78, 0.01),
    rect(WHITE, 0.7, 0.63, 0.78, 0.85, 0.01),
  ],
  // Share with managers: a person and a green arrow going out to the right.
  share: [
    circle(BRAND, 0.32, 0.28, 0.17),
    rect(BRAND, 0.04, 0.52, 0.6, 0.96, 0.2),
    rect(null, 0.04, 0.9, 0.6, 1, 0),
    rect(GREEN, 0.52, 0.53, 0.78, 0.67, 0.01),
    polygon(GREEN, [
      [0.72, 0.36],
      [0.99, 0.6],
      [0.72, 0.84],
    ]),
  ],
  // Function help: an "i" in a blue disc.
  functions: [circle(BRAND, 0.5, 0.5, 0.47), circle(WHITE, 0.5, 0.27, 0.085), rect(WHITE, 0.42, 0.41, 0.58, 0.8, 0.04)],
};

/** RGBA pixels of one icon (default: the add-in icon): straight (non-premultiplied) alpha, as PNG wants. */
export function render(size: number, samples = 8, shapes: Shape[] = ADDIN): Buffer {
  const rgba = Buffer.alloc(size * size * 4);
  for (let py = 0; py < size; py++) {
    for (let px = 0; px < size; px++) {
      let r = 0;
      let g = 0;
      let b = 0;
      let a = 0;
      for (let sy = 0; sy < samples; sy++) {
        for (let sx = 0; sx < samples; sx++) {
          const x = (px + (sx + 0.5) / samples) / size;
          const y = (py + (sy + 0.5) / samples) / size;
          let color: Rgb | null = null;
          for (const shape of shapes) if (shape.inside(x, y)) color = shape.color;
          if (color) {
            r += color[0];
            g += color[1];
            b += color[2];
            a += 1;
          }
        }
      }
      const o = (py * size + px) * 4;
      if (a > 0) {
        rgba[o] = Math.round(r / a);
        rgba[o + 1] = Math.round(g / a);
        rgba[o + 2] = Math.round(b / a);
      }
      rgba[o + 3] = Math.round((255 * a) / (samples * samples));
    }
  }
  return rgba;
}

/** Every icon file this script writes: file name → PNG bytes. */
export function allIcons(): Map<string, Buffer> {
  const out = new Map<string, Buffer>();
  for (const size of SIZES) out.set(`icon-${size}.png`, encodePng(size, render(size)));
  for (const [name, shapes] of Object.entries(COMMAND_ICONS))
    for (const size of COMMAND_SIZES) out.set(`cmd-${name}-${size}.png`, encodePng(size, render(size, 8, shapes)));
  return out;
}

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

function crc32(buf: Buffer): number {
  let c = 0xffffffff;
  for (const byte of buf) c = CRC_TABLE[(c ^ byte) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

function chunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, "ascii"), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([length, body, crc]);
}

/** Encodes RGBA pixels as a PNG (8-bit RGBA, no filtering). */
export function encodePng(size: number, rgba: Buffer): Buffer {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(size, 0);
  ihdr.writeUInt32BE(size, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 6; // colour type RGBA
  const raw = Buffer.alloc(size * (size * 4 + 1));
  for (let y = 0; y < size; y++) rgba.copy(raw, y * (size * 4 + 1) + 1, y * size * 4, (y + 1) * size * 4);
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk("IHDR", ihdr),
    chunk("IDAT", zlib.deflateSync(raw, { level: 9 })),
    chunk("IEND", Buffer.alloc(0)),
  ]);
}

function main(): void {
  const outDir = path.resolve(process.argv[2] || path.join(__dirname, "..", "assets"));
  fs.mkdirSync(outDir, { recursive: true });
  for (const [name, bytes] of allIcons()) {
    const file = path.join(outDir, name);
    fs.writeFileSync(file, bytes);
    console.log(`wrote ${path.relative(process.cwd(), file)}`);
  }
}

if (require.main === module) main();
