/**
 * Bundles as one .zip (bundle.ts, zip.ts, bundle-source.ts): the zip holds the folder's files byte
 * for byte (same root hash), other tools read it (Python's zipfile, Zip64 fields included), verify
 * names tampering inside a zip as in a folder, a damaged zip is refused in words, import from a zip
 * equals import from the folder, and a cancelled zip leaves nothing behind.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { deflateRawSync } from 'node:zlib';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { openArchive, type Archive } from '../archive';
import { listResponse, post } from '../archive/test-fixtures';
import { exportBundle } from './bundle';
import { importBundle, verifyBundle } from './bundle-check';
import { deflateBound, needsZip64, openZip, writeZip } from './zip';

const T0 = Date.UTC(2026, 0, 1);
const dirs: string[] = [];
const tmp = () => {
  const d = mkdtempSync(join(tmpdir(), 'loupe-zip-'));
  dirs.push(d);
  return d;
};
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function archiveOf(n: number, author = 'ana'): Archive {
  const a = openArchive(':memory:', { author: () => author });
  for (let c = 0; c < 3; c++) {
    const rows = Array.from({ length: n }, (_, i) =>
      post({ id: `${c * 100 + i}`, likes: i * 7 + c, published_at: new Date(T0 + i * 3_600_000).toISOString() }),
    );
    a.storeResponse(
      listResponse(`call-${c}`, c === 2 ? 'micro_net' : 'photo_net', 'profile/posts', rows, { fetchedAt: T0 + c * 60_000 }),
      'test',
      null,
    );
  }
  a.setNote({ platform: 'photo_net', kind: 'post', id: '0' }, 'looks sponsored');
  return a;
}
const opts = (out: string) => ({ out, query: {}, version: '0.1.0', variants: ['judgments-beside'], now: T0 + 86_400_000 });
const python = (script: string, ...args: string[]) => execFileSync('python3', ['-c', script, ...args], { encoding: 'utf8' });

describe('a bundle as one .zip', () => {
  it('holds the folder bundle byte for byte (same root); Python reads it, Zip64 fields included', async () => {
    const a = archiveOf(20);
    const folder = join(tmp(), 'b');
    const m = await exportBundle(a, opts(folder));
    for (const zip64 of ['auto', 'always'] as const) {
      const out = join(tmp(), `b-${zip64}.zip`);
      const z = await exportBundle(a, { ...opts(out), zip64 });
      expect(z.root_sha256).toBe(m.root_sha256);
      expect(readdirSync(join(out, '..'))).toEqual([`b-${zip64}.zip`]); // no parts left beside it
      // Python's zipfile: every entry's CRC, and each file's SHA-256 as in the folder
      const got = JSON.parse(
        python(
          'import zipfile,sys,json,hashlib; z=zipfile.ZipFile(sys.argv[1]); assert z.testzip() is None; print(json.dumps({n: hashlib.sha256(z.read(n)).hexdigest() for n in z.namelist()}))',
          out,
        ),
      ) as Record<string, string>;
      const want = Object.fromEntries(
        readdirSync(folder).map((n) => [
          n,
          createHash('sha256')
            .update(readFileSync(join(folder, n)))
            .digest('hex'),
        ]),
      );
      expect(got).toEqual(want);
      expect(await verifyBundle(out, { archive: a })).toMatchObject({ ok: true, root: m.root_sha256, problems: [] });
      await expect(exportBundle(a, opts(out))).rejects.toThrow(/already exists; a \.zip bundle is written to a new file/);
    }
  });

  it('reads what other tools write: a folder zipped by hand, stored or deflated', async () => {
    const a = archiveOf(5);
    const folder = join(tmp(), 'mine');
    const m = await exportBundle(a, opts(folder));
    for (const method of ['ZIP_STORED', 'ZIP_DEFLATED']) {
      const out = join(tmp(), 'hand.zip');
      python(
        `import zipfile,sys,os\nwith zipfile.ZipFile(sys.argv[1],'w',zipfile.${method}) as z:\n  z.write(sys.argv[2],'mine/')\n  [z.write(os.path.join(sys.argv[2],n),'mine/'+n) for n in sorted(os.listdir(sys.argv[2]))]`,
        out,
        folder,
      );
      expect(await verifyBundle(out)).toMatchObject({ ok: true, root: m.root_sha256 });
      rmSync(out);
    }
  });

  it('verify names tampering inside a zip: an edited cell, a dropped row, an added row, an edited manifest', async () => {
    const a = archiveOf(6);
    const clean = join(tmp(), 'clean');
    await exportBundle(a, opts(clean));
    const zipOf = async (change: (files: Map<string, Buffer>) => void) => {
      const d = tmp();
      const files = new Map(readdirSync(clean).map((n) => [n, readFileSync(join(clean, n))]));
      change(files);
      for (const [n, b] of files) writeFileSync(join(d, n), b);
      const out = join(tmp(), 't.zip');
      await writeZip(
        out,
        [...files.keys()].map((name) => ({ name, path: join(d, name) })),
      );
      return (await verifyBundle(out)).problems;
    };
    const csv = (f: Map<string, Buffer>, g: (lines: string[]) => string[]) =>
      f.set('items.csv', Buffer.from(g(f.get('items.csv')!.toString('utf8').split('\r\n')).join('\r\n')));
    expect(await zipOf((f) => csv(f, (l) => l.map((x, i) => (i === 2 ? x.replace(/"post (\d+)"/, '"post $1!"') : x))))).toEqual(
      expect.arrayContaining([expect.stringMatching(/^items\.csv: line 3 \(.+\) differs from the row exported: edited\.$/)]),
    );
    expect(await zipOf((f) => csv(f, (l) => l.filter((_, i) => i !== 4)))).toEqual(
      expect.arrayContaining([expect.stringMatching(/^items\.csv: the row of .+ is missing: dropped\.$/)]),
    );
    expect(await zipOf((f) => csv(f, (l) => [...l.slice(0, 2), l[1].replace(/"0"/g, '"777"'), ...l.slice(2)]))).toEqual(
      expect.arrayContaining([expect.stringMatching(/^items\.csv: line 3 (is a row the manifest does not list|repeats).*: added\.$/)]),
    );
    expect(
      await zipOf((f) => {
        const m = JSON.parse(f.get('manifest.json')!.toString('utf8'));
        m.query = { platforms: ['photo_net'] };
        f.set('manifest.json', Buffer.from(JSON.stringify(m)));
      }),
    ).toContain('manifest.json: its root hash does not match its contents: the manifest was edited.');
  });

  it('a damaged zip is refused in words; nothing is imported', async () => {
    const a = archiveOf(30);
    const out = join(tmp(), 'd.zip');
    await exportBundle(a, opts(out));
    const z = await openZip(out);
    const e = z.entries.find((x) => x.name === 'items.csv')!;
    await z.close();
    const b = readFileSync(out);
    b[e.offset + 30 + 'items.csv'.length + 40] ^= 0xff; // a byte of its compressed data
    writeFileSync(out, b);
    await expect(verifyBundle(out)).rejects.toThrow(
      /is not a readable zip \(the entry items\.csv (fails its CRC-32 check|does not inflate)/,
    );
    const other = openArchive(':memory:');
    await expect(importBundle(out, other, T0)).rejects.toThrow(/not a readable zip/);
    expect(other.count({})).toBe(0);
    writeFileSync(out, b.subarray(0, b.length - 30)); // cut short
    await expect(verifyBundle(out)).rejects.toThrow(/not a readable zip/);
  });

  it('a zip holding a file twice (a tampered copy beside the original) is refused, whichever comes first', async () => {
    const a = archiveOf(6);
    const clean = join(tmp(), 'clean');
    await exportBundle(a, opts(clean));
    const edited = join(tmp(), 'items.csv');
    writeFileSync(edited, readFileSync(join(clean, 'items.csv')).toString('utf8').replace('"post 3"', '"post 3!"'));
    const names = readdirSync(clean).sort();
    for (const tamperedFirst of [true, false]) {
      const files = names.map((name) => ({ name, path: join(clean, name) }));
      const out = join(tmp(), 'twice.zip');
      await writeZip(
        out,
        tamperedFirst ? [{ name: 'items.csv', path: edited }, ...files] : [...files, { name: 'items.csv', path: edited }],
      );
      // before: verified when the original came last (the reader kept the last entry of a name)
      await expect(verifyBundle(out)).rejects.toThrow(/holds items\.csv twice/);
      const other = openArchive(':memory:');
      await expect(importBundle(out, other, T0)).rejects.toThrow(/holds items\.csv twice/);
      expect(other.count({})).toBe(0);
    }
  });

  it('a bundle file over 2 GiB (read whole) is refused in words, not an internal error', async () => {
    const a = archiveOf(3);
    const folder = join(tmp(), 'big');
    await exportBundle(a, opts(folder));
    truncateSync(join(folder, 'items.parquet'), 2 ** 31 + 4096); // sparse: no disk used
    // before: "File size (2147487744) is greater than 2 GiB" (an internal error, exit 1)
    await expect(verifyBundle(folder)).rejects.toMatchObject({
      kind: 'not_available',
      message: expect.stringMatching(/^items\.parquet in .+ is 2,147,487,744 bytes: .+at most 2 GiB/),
    });
    const other = openArchive(':memory:');
    await expect(importBundle(folder, other, T0)).rejects.toThrow(/at most 2 GiB/);
    expect(other.count({})).toBe(0);
  });

  it('import from a zip equals import from the folder (generated archives)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 12 }), async (n) => {
        const a = archiveOf(n);
        const folder = join(tmp(), 'f');
        const zip = join(tmp(), 'f.zip');
        await exportBundle(a, opts(folder));
        await exportBundle(a, opts(zip));
        const [x, y] = [openArchive(':memory:', { author: () => 'bo' }), openArchive(':memory:', { author: () => 'bo' })];
        const rx = await importBundle(folder, x, T0);
        const ry = await importBundle(zip, y, T0);
        expect(ry).toEqual(rx);
        const all = (b: Archive) => b.listQuery({ limit: 1000 }).rows.map((r) => b.getItem(r.platform, r.kind, r.id));
        expect(all(y)).toEqual(all(x));
        expect(y.count({})).toBe(a.count({}));
        for (const b of [a, x, y]) b.close();
      }),
      { numRuns: 4, examples: [[1]] },
    );
  });

  it('a cancelled .zip bundle leaves nothing behind', async () => {
    const a = archiveOf(40);
    const dir = tmp();
    const ctl = new AbortController();
    let steps = 0;
    await expect(
      exportBundle(a, { ...opts(join(dir, 'c.zip')), signal: ctl.signal, onStep: () => ++steps > 2 && ctl.abort() }),
    ).rejects.toThrow(/cancelled/i);
    expect(readdirSync(dir)).toEqual([]);
    expect(existsSync(join(dir, 'c.zip'))).toBe(false);
  });
});

describe('when an entry needs Zip64', () => {
  it('deflate never makes more than the bound of what it is given (random, repeated and mixed bytes)', () => {
    const bytes = fc.oneof(
      fc.uint8Array({ minLength: 0, maxLength: 100_000 }),
      fc.tuple(fc.integer({ min: 0, max: 255 }), fc.integer({ min: 0, max: 100_000 })).map(([b, n]) => new Uint8Array(n).fill(b)),
      fc.tuple(fc.uint8Array({ minLength: 1, maxLength: 40_000 }), fc.integer({ min: 1, max: 4 })).map(([a, k]) => {
        const out = new Uint8Array(a.length * k);
        for (let i = 0; i < k; i++) out.set(i % 2 ? a.map((x) => x ^ 0x5a) : a, i * a.length);
        return out;
      }),
    );
    fc.assert(
      fc.property(bytes, (b) => {
        expect(deflateRawSync(b, { level: 6 }).length).toBeLessThanOrEqual(deflateBound(b.length));
      }),
      { numRuns: 40 },
    );
  });

  it('decides on that bound: a file ~1.1 MiB short of 4 GiB that deflate may grow past it is written as Zip64', () => {
    const MAX32 = 0xffffffff;
    expect(needsZip64(MAX32)).toBe(true);
    expect(needsZip64(2 ** 33)).toBe(true);
    // the old rule (1 MiB margin) let this through as a classic entry; incompressible, it deflates past 2^32 - 1
    const near = MAX32 - 0x100000 - 0x20000;
    expect(deflateBound(near)).toBeGreaterThanOrEqual(MAX32);
    expect(needsZip64(near)).toBe(true);
    expect(needsZip64(MAX32 - 0x200000)).toBe(false);
    expect(needsZip64(1_000_000_000)).toBe(false);
  });
});
