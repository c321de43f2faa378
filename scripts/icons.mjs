#!/usr/bin/env node
// `npm run icons`: Loupe's icon, drawn here once as geometry, written as the SVG source
// (resources/icon.svg) and rasterised from the SAME geometry (not from the SVG, so no image tool
// is needed) into every size the packages want:
//   resources/icon.png              512×512 (window icon on Linux, electron-builder's fallback)
//   resources/icons/<n>x<n>.png     16…1024 (Linux: AppImage and deb hicolor theme)
//   resources/icon.icns             macOS (PNG-encoded entries, 16…1024)
//   resources/icon.ico              Windows (PNG-encoded entries, 16…256; Vista and later)
//   resources/badge.png             32×32 overlay for the Windows taskbar "new items" badge
// The design: a loupe (a magnifying lens with a handle) over three bars of a chart, on a rounded
// square going from ink blue to teal. Deterministic: the same bytes every run.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { crc32, deflateSync } from 'node:zlib';

const root = resolve(import.meta.dirname, '..');
const S = 1024; // design canvas

// ── the geometry (canvas units, y down) ──────────────────────────────────────────────────────
const BG = { x: 72, y: 72, w: 880, h: 880, r: 196, top: '#21406B', bottom: '#0E7C74' };
const LENS = { cx: 440, cy: 430, outer: 262, inner: 198 };
const CREAM = '#F4F1EA';
const GLASS = { color: '#0A2036', alpha: 0.5 };
const BARS = [
  { x: 338, w: 58, top: 452, color: '#F6B73C' },
  { x: 411, w: 58, top: 354, color: '#F6B73C' },
  { x: 484, w: 58, top: 404, color: '#F6B73C' },
];
const BAR_BOTTOM = 546;
const BAR_R = 12;
const HANDLE = { x1: 626, y1: 616, x2: 800, y2: 790, r: 60, color: CREAM }; // starts at the ring: never under the glass
const BADGE = { color: '#E5484D', ring: '#FFFFFF' };

// ── SVG ──────────────────────────────────────────────────────────────────────────────────────
export function iconSvg() {
  const bars = BARS.map(
    (b) => `    <rect x="${b.x}" y="${b.top}" width="${b.w}" height="${BAR_BOTTOM - b.top + BAR_R}" rx="${BAR_R}" fill="${b.color}"/>`,
  ).join('\n');
  return `<?xml version="1.0" encoding="UTF-8"?>
<!-- Loupe's icon. Source of truth: scripts/icons.mjs (npm run icons writes this file and every raster size). -->
<svg xmlns="http://www.w3.org/2000/svg" width="${S}" height="${S}" viewBox="0 0 ${S} ${S}">
  <title>Loupe</title>
  <defs>
    <linearGradient id="bg" x1="0" y1="${BG.y}" x2="0" y2="${BG.y + BG.h}" gradientUnits="userSpaceOnUse">
      <stop offset="0" stop-color="${BG.top}"/>
      <stop offset="1" stop-color="${BG.bottom}"/>
    </linearGradient>
    <clipPath id="glass"><circle cx="${LENS.cx}" cy="${LENS.cy}" r="${LENS.inner}"/></clipPath>
  </defs>
  <rect x="${BG.x}" y="${BG.y}" width="${BG.w}" height="${BG.h}" rx="${BG.r}" fill="url(#bg)"/>
  <line x1="${HANDLE.x1}" y1="${HANDLE.y1}" x2="${HANDLE.x2}" y2="${HANDLE.y2}" stroke="${HANDLE.color}" stroke-width="${HANDLE.r * 2}" stroke-linecap="round"/>
  <circle cx="${LENS.cx}" cy="${LENS.cy}" r="${LENS.inner}" fill="${GLASS.color}" fill-opacity="${GLASS.alpha}"/>
  <g clip-path="url(#glass)">
${bars}
  </g>
  <circle cx="${LENS.cx}" cy="${LENS.cy}" r="${(LENS.outer + LENS.inner) / 2}" fill="none" stroke="${CREAM}" stroke-width="${LENS.outer - LENS.inner}"/>
</svg>
`;
}

// ── rasteriser: the same shapes, painted in the same order, with supersampled coverage ──────
const hex = (h) => [parseInt(h.slice(1, 3), 16), parseInt(h.slice(3, 5), 16), parseInt(h.slice(5, 7), 16)];

function inRoundRect(x, y, r) {
  const dx = Math.max(r.x + r.r - x, 0, x - (r.x + r.w - r.r));
  const dy = Math.max(r.y + r.r - y, 0, y - (r.y + r.h - r.r));
  return x >= r.x && x <= r.x + r.w && y >= r.y && y <= r.y + r.h && dx * dx + dy * dy <= r.r * r.r;
}
function inCapsule(x, y, c) {
  const vx = c.x2 - c.x1;
  const vy = c.y2 - c.y1;
  const t = Math.max(0, Math.min(1, ((x - c.x1) * vx + (y - c.y1) * vy) / (vx * vx + vy * vy)));
  const dx = x - (c.x1 + t * vx);
  const dy = y - (c.y1 + t * vy);
  return dx * dx + dy * dy <= c.r * c.r;
}
const d2 = (x, y) => (x - LENS.cx) ** 2 + (y - LENS.cy) ** 2;

/** The colour [r,g,b,a] (0..1 floats) of one sample point of the icon. */
function sample(x, y) {
  if (!inRoundRect(x, y, BG)) return null;
  const t = (y - BG.y) / BG.h;
  const top = hex(BG.top);
  const bottom = hex(BG.bottom);
  let c = top.map((v, i) => (v + (bottom[i] - v) * t) / 255);
  const over = (col, alpha = 1) => {
    const k = hex(col).map((v) => v / 255);
    c = c.map((v, i) => v * (1 - alpha) + k[i] * alpha);
  };
  if (inCapsule(x, y, HANDLE)) over(HANDLE.color);
  const r2 = d2(x, y);
  if (r2 <= LENS.inner ** 2) {
    over(GLASS.color, GLASS.alpha);
    for (const b of BARS) if (inRoundRect(x, y, { x: b.x, y: b.top, w: b.w, h: BAR_BOTTOM - b.top + BAR_R, r: BAR_R })) over(b.color);
  } else if (r2 <= LENS.outer ** 2) over(CREAM);
  return c;
}

/** An RGBA raster of the icon at size n (premultiplied while averaging, straight alpha out). */
export function rasterIcon(n) {
  const ss = n <= 64 ? 8 : n <= 256 ? 4 : 3; // samples per axis per pixel
  const px = Buffer.alloc(n * n * 4);
  const k = S / n;
  for (let py = 0; py < n; py++) {
    for (let qx = 0; qx < n; qx++) {
      let r = 0;
      let g = 0;
      let b = 0;
      let a = 0;
      for (let sy = 0; sy < ss; sy++) {
        for (let sx = 0; sx < ss; sx++) {
          const c = sample((qx + (sx + 0.5) / ss) * k, (py + (sy + 0.5) / ss) * k);
          if (!c) continue;
          r += c[0];
          g += c[1];
          b += c[2];
          a += 1;
        }
      }
      const o = (py * n + qx) * 4;
      if (a > 0) {
        px[o] = Math.round((r / a) * 255);
        px[o + 1] = Math.round((g / a) * 255);
        px[o + 2] = Math.round((b / a) * 255);
        px[o + 3] = Math.round((a / (ss * ss)) * 255);
      }
    }
  }
  return px;
}

/** The Windows taskbar overlay: a red dot with a white rim, size n. */
export function rasterBadge(n) {
  const px = Buffer.alloc(n * n * 4);
  const ss = 8;
  const c = n / 2;
  const outer = n / 2 - 0.5;
  const inner = outer - Math.max(1.5, n / 12);
  const red = hex(BADGE.color);
  const white = hex(BADGE.ring);
  for (let y = 0; y < n; y++) {
    for (let x = 0; x < n; x++) {
      let r = 0;
      let g = 0;
      let b = 0;
      let a = 0;
      for (let sy = 0; sy < ss; sy++) {
        for (let sx = 0; sx < ss; sx++) {
          const dx = x + (sx + 0.5) / ss - c;
          const dy = y + (sy + 0.5) / ss - c;
          const d = Math.sqrt(dx * dx + dy * dy);
          if (d > outer) continue;
          const col = d > inner ? white : red;
          r += col[0];
          g += col[1];
          b += col[2];
          a += 1;
        }
      }
      const o = (y * n + x) * 4;
      if (a > 0) {
        px[o] = Math.round(r / a);
        px[o + 1] = Math.round(g / a);
        px[o + 2] = Math.round(b / a);
        px[o + 3] = Math.round((a / (ss * ss)) * 255);
      }
    }
  }
  return px;
}

// ── encoders ─────────────────────────────────────────────────────────────────────────────────
function chunk(type, data) {
  const len = Buffer.alloc(4);
  len.writeUInt32BE(data.length);
  const td = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(td) >>> 0);
  return Buffer.concat([len, td, crc]);
}

/** A PNG (8-bit RGBA, no interlace) of an n×n RGBA raster. */
export function encodePng(rgba, n) {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(n, 0);
  ihdr.writeUInt32BE(n, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 6; // RGBA
  const raw = Buffer.alloc(n * (n * 4 + 1));
  for (let y = 0; y < n; y++) rgba.copy(raw, y * (n * 4 + 1) + 1, y * n * 4, (y + 1) * n * 4); // filter 0 per row
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    chunk('IDAT', deflateSync(raw, { level: 9 })),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

/** An .ico holding PNG-encoded images (supported since Windows Vista). */
export function encodeIco(pngs) {
  const head = Buffer.alloc(6 + 16 * pngs.length);
  head.writeUInt16LE(0, 0);
  head.writeUInt16LE(1, 2); // icon
  head.writeUInt16LE(pngs.length, 4);
  let offset = head.length;
  pngs.forEach(({ size, png }, i) => {
    const e = 6 + i * 16;
    head[e] = size >= 256 ? 0 : size;
    head[e + 1] = size >= 256 ? 0 : size;
    head.writeUInt16LE(1, e + 4); // planes
    head.writeUInt16LE(32, e + 6); // bits per pixel
    head.writeUInt32LE(png.length, e + 8);
    head.writeUInt32LE(offset, e + 12);
    offset += png.length;
  });
  return Buffer.concat([head, ...pngs.map((p) => p.png)]);
}

/** The icns entry types that hold PNG data, by pixel size. */
export const ICNS_TYPES = [
  ['icp4', 16],
  ['icp5', 32],
  ['icp6', 64],
  ['ic07', 128],
  ['ic08', 256],
  ['ic09', 512],
  ['ic10', 1024],
  ['ic11', 32],
  ['ic12', 64],
  ['ic13', 256],
  ['ic14', 512],
];

export function encodeIcns(pngBySize) {
  const entries = ICNS_TYPES.map(([type, size]) => {
    const png = pngBySize.get(size);
    const h = Buffer.alloc(8);
    h.write(type, 0, 'ascii');
    h.writeUInt32BE(8 + png.length, 4);
    return Buffer.concat([h, png]);
  });
  const body = Buffer.concat(entries);
  const h = Buffer.alloc(8);
  h.write('icns', 0, 'ascii');
  h.writeUInt32BE(8 + body.length, 4);
  return Buffer.concat([h, body]);
}

export const LINUX_SIZES = [16, 24, 32, 48, 64, 128, 256, 512, 1024];
export const ICO_SIZES = [16, 24, 32, 48, 64, 128, 256];

function main() {
  const dir = join(root, 'resources');
  mkdirSync(join(dir, 'icons'), { recursive: true });
  writeFileSync(join(dir, 'icon.svg'), iconSvg());
  const pngs = new Map();
  for (const n of [...new Set([...LINUX_SIZES, ...ICO_SIZES, ...ICNS_TYPES.map(([, s]) => s)])].sort((a, b) => a - b)) {
    pngs.set(n, encodePng(rasterIcon(n), n));
    process.stderr.write(`icon ${n}×${n}\n`);
  }
  for (const n of LINUX_SIZES) writeFileSync(join(dir, 'icons', `${n}x${n}.png`), pngs.get(n));
  writeFileSync(join(dir, 'icon.png'), pngs.get(512));
  writeFileSync(join(dir, 'icon.ico'), encodeIco(ICO_SIZES.map((size) => ({ size, png: pngs.get(size) }))));
  writeFileSync(join(dir, 'icon.icns'), encodeIcns(pngs));
  writeFileSync(join(dir, 'badge.png'), encodePng(rasterBadge(32), 32));
  process.stderr.write(`wrote ${dir}\n`);
}

if (process.argv[1] && resolve(process.argv[1]) === resolve(import.meta.filename)) main();
