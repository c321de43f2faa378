/**
 * `npm run dist`'s configuration (electron-builder.json), validated against electron-builder's own
 * JSON schema (app-builder-lib/scheme.json), plus what Loupe needs of it; and the icons it names.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import Ajv from 'ajv';
import { describe, expect, it } from 'vitest';
import { iconSvg, ICNS_TYPES, ICO_SIZES, LINUX_SIZES } from '../../scripts/icons.mjs';

const root = join(import.meta.dirname, '..', '..');
const config = JSON.parse(readFileSync(join(root, 'electron-builder.json'), 'utf8')) as Record<string, unknown> & {
  linux: { target: string[]; icon: string };
  mac: { target: string[]; icon: string; entitlements: string };
  win: { target: string[]; icon: string };
  asarUnpack: string[];
  extraResources: Array<{ from: string; to: string; filter: string[] }>;
  electronFuses: Record<string, boolean>;
};
const schema = JSON.parse(readFileSync(join(root, 'node_modules', 'app-builder-lib', 'scheme.json'), 'utf8')) as object;

describe('electron-builder.json', () => {
  const validate = new Ajv({ allErrors: true, strict: false }).compile(schema);

  it("is valid under electron-builder's own schema (and the schema does reject a wrong config)", () => {
    expect(validate(config), JSON.stringify(validate.errors, null, 2)).toBe(true);
    expect(validate({ ...config, asarUnpackk: [] })).toBe(false);
    expect(validate({ ...config, electronFuses: { runAsNode: 'off' } })).toBe(false);
  });

  it('names the app and the four installers', () => {
    expect(config.appId).toBe('app.loupe.desktop');
    expect(config.productName).toBe('Loupe');
    expect(config.linux.target).toEqual(['AppImage', 'deb']);
    expect(config.mac.target).toEqual(['dmg']);
    expect(config.win.target).toEqual(['nsis']);
    expect((config.directories as { buildResources: string }).buildResources).toBe('build');
    expect(existsSync(join(root, config.mac.entitlements))).toBe(true);
  });

  it('keeps the native module and the CSV worker (and its chunk) out of the asar archive', () => {
    expect(config.asarUnpack).toEqual(
      expect.arrayContaining(['out/main/csv-worker.js', 'out/main/chunks/**', 'node_modules/better-sqlite3/**']),
    );
    // the Electron build of better-sqlite3 goes to <resources>/native, where src/main/native.ts looks
    expect(config.extraResources).toContainEqual({
      from: '.electron-native/${platform}-${arch}',
      to: 'native',
      filter: ['better_sqlite3-electron-v*.node'],
    });
    // electron-builder must not rebuild node_modules in place (the Node build is the tests' and the CLI's)
    expect(config.npmRebuild).toBe(false);
    // the worker really is a separate file with a chunk beside the bundle
    const vite = readFileSync(join(root, 'electron.vite.config.ts'), 'utf8');
    expect(vite).toContain("'csv-worker': resolve('src/core/export/csv-worker.ts')");
    expect(vite).toContain("'prepare-worker': resolve('src/core/archive/prepare-worker.ts')");
    expect(config.asarUnpack).toContain('out/main/prepare-worker.js');
    expect(vite).toContain("'index-worker': resolve('src/core/analysis/index-worker.ts')");
    expect(config.asarUnpack).toContain('out/main/index-worker.js');
    expect(vite).toContain("'xlsx-worker': resolve('src/core/export/xlsx-worker.ts')");
    expect(config.asarUnpack).toContain('out/main/xlsx-worker.js');
    expect(vite).toContain("chunkFileNames: 'chunks/[name]-[hash].js'");
  });

  it('flips the fuses of a hardened app', () => {
    expect(config.electronFuses).toMatchObject({
      runAsNode: false,
      enableCookieEncryption: true,
      enableNodeOptionsEnvironmentVariable: false,
      enableNodeCliInspectArguments: false,
      enableEmbeddedAsarIntegrityValidation: true,
      onlyLoadAppFromAsar: true,
    });
  });
});

describe('icons', () => {
  const png = (p: string) => {
    const b = readFileSync(join(root, p));
    expect(b.subarray(1, 4).toString('ascii'), p).toBe('PNG');
    return { w: b.readUInt32BE(16), h: b.readUInt32BE(20) };
  };

  it('the SVG source is what scripts/icons.mjs draws; every raster size is there', () => {
    expect(readFileSync(join(root, 'resources', 'icon.svg'), 'utf8')).toBe(iconSvg());
    for (const n of LINUX_SIZES) expect(png(`${config.linux.icon}/${n}x${n}.png`)).toEqual({ w: n, h: n });
    expect(png('resources/icon.png')).toEqual({ w: 512, h: 512 });
    expect(png('resources/badge.png')).toEqual({ w: 32, h: 32 });
  });

  it('the ICO and ICNS hold PNG images of the expected sizes', () => {
    const ico = readFileSync(join(root, config.win.icon));
    expect([ico.readUInt16LE(0), ico.readUInt16LE(2), ico.readUInt16LE(4)]).toEqual([0, 1, ICO_SIZES.length]);
    ICO_SIZES.forEach((n, i) => {
      const e = 6 + i * 16;
      expect(ico[e] || 256).toBe(n);
      const at = ico.readUInt32LE(e + 12);
      expect(ico.subarray(at + 1, at + 4).toString('ascii')).toBe('PNG');
      expect(ico.readUInt32BE(at + 16)).toBe(n);
    });
    const icns = readFileSync(join(root, config.mac.icon));
    expect(icns.subarray(0, 4).toString('ascii')).toBe('icns');
    expect(icns.readUInt32BE(4)).toBe(icns.length);
    const seen: string[] = [];
    for (let at = 8; at < icns.length; at += icns.readUInt32BE(at + 4)) {
      const type = icns.subarray(at, at + 4).toString('ascii');
      seen.push(type);
      const size = ICNS_TYPES.find(([t]) => t === type)![1];
      expect(icns.readUInt32BE(at + 8 + 16), type).toBe(size);
    }
    expect(seen).toEqual(ICNS_TYPES.map(([t]) => t));
  });
});
