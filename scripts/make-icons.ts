/**
 * Draws the add-in icons (assets/icon-16.png, -32, -64, -80): a blue rounded square with three
 * white bars of rising height under an amber "capacity" line. Deterministic: the same script
 * always writes the same bytes, so the PNGs in git can be checked against it.
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

export const SIZES = [16, 32, 64, 80];
const BACKGROUND: Rgb = [15, 108, 189]; // Fluent brand blue #0F6CBD
const BARS: Rgb = [255, 255, 255];
const LIMIT: Rgb = [255, 185, 0]; // amber #FFB900

/** Shapes in unit coordinates (0..1, y down), painted in order. */
const SHAPES: { color: Rgb; inside: (x: number, y: number) => boolean }[] = [
  { color: BACKGROUND, inside: (x, y) => inRoundedRect(x, y, 0.03, 0.03, 0.97, 0.97, 0.2) },
  { color: BARS, inside: (x, y) => inRoundedRect(x, y, 0.19, 0.56, 0.35, 0.82, 0.03) },
  { color: BARS, inside: (x, y) => inRoundedRect(x, y, 0.42, 0.42, 0.58, 0.82, 0.03) },
  { color: BARS, inside: (x, y) => inRoundedRect(x, y, 0.65, 0.3, 0.81, 0.82, 0.03) },
  { color: LIMIT, inside: (x, y) => inRoundedRect(x, y, 0.14, 0.17, 0.86, 0.23, 0.03) },
];

function inRoundedRect(x: number, y: number, x0: number, y0: number, x1: number, y1: number, r: number): boolean {
  if (x < x0 || x > x1 || y < y0 || y > y1) return false;
  const cx = Math.min(Math.max(x, x0 + r), x1 - r);
  const cy = Math.min(Math.max(y, y0 + r), y1 - r);
  return (x - cx) ** 2 + (y - cy) ** 2 <= r * r;
}

/** RGBA pixels of one icon: straight (non-premultiplied) alpha, as PNG wants. */
export function render(size: number, samples = 8): Buffer {
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
          for (const shape of SHAPES) if (shape.inside(x, y)) color = shape.color;
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
  for (const size of SIZES) {
    const file = path.join(outDir, `icon-${size}.png`);
    fs.writeFileSync(file, encodePng(size, render(size)));
    console.log(`wrote ${path.relative(process.cwd(), file)} (${size}×${size})`);
  }
}

if (require.main === module) main();
