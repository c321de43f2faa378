/**
 * A small ZIP writer and reader for dataset bundles (docs/datasets.md "Bundles as .zip"), on Node's
 * own zlib — no dependency. The writer streams each file through raw deflate straight into the
 * archive (a data descriptor after each entry, so nothing is held whole in memory) and switches to
 * Zip64 (APPNOTE 4.5.3) wherever a size, an offset or the entry count does not fit the classic
 * fields — or everywhere, when asked (tests). The reader takes the central directory (Zip64 too),
 * stored and deflated entries, and checks each entry's CRC-32. Names are UTF-8 (flag bit 11).
 */
import { createReadStream, createWriteStream } from 'node:fs';
import { open, stat, type FileHandle } from 'node:fs/promises';
import { crc32, createDeflateRaw, inflateRawSync } from 'node:zlib';
import { LoupeError } from '../../shared/errors';

const LOCAL = 0x04034b50;
const CENTRAL = 0x02014b50;
const DESCRIPTOR = 0x08074b50;
const EOCD = 0x06054b50;
const EOCD64 = 0x06064b50;
const LOCATOR64 = 0x07064b50;
const MAX32 = 0xffffffff;
const MAX16 = 0xffff;
/** flags: sizes in a data descriptor (bit 3), UTF-8 names (bit 11) */
const FLAGS = 0x0808;

interface Written {
  name: Buffer;
  crc: number;
  size: number;
  csize: number;
  offset: number;
  zip64: boolean;
}

function dosTime(d: Date): { time: number; date: number } {
  return {
    time: (d.getUTCHours() << 11) | (d.getUTCMinutes() << 5) | Math.floor(d.getUTCSeconds() / 2),
    date: (Math.max(0, d.getUTCFullYear() - 1980) << 9) | ((d.getUTCMonth() + 1) << 5) | d.getUTCDate(),
  };
}

/** The zip being written: its stream and the position of the next byte. */
interface ZipOut {
  write(b: Buffer): Promise<void>;
  pos: number;
}

/**
 * Writes `files` (name in the zip → path on disk) into a new zip at `out`, streamed. `zip64`:
 * 'auto' uses Zip64 fields only where needed; 'always' everywhere (to test readers on small files).
 * `onFile` hears each file as it is done (progress); `signal` stops between chunks (the caller
 * removes the partial file).
 */
export async function writeZip(
  out: string,
  files: Array<{ name: string; path: string }>,
  o: { zip64?: 'auto' | 'always'; now?: Date; onFile?: (name: string, bytes: number) => void; signal?: AbortSignal } = {},
): Promise<{ bytes: number; entries: number }> {
  const ws = createWriteStream(out, { flags: 'wx' });
  const failed = new Promise<never>((_, j) => ws.once('error', j));
  failed.catch(() => undefined);
  const z: ZipOut = {
    pos: 0,
    write(b) {
      this.pos += b.length;
      return ws.write(b) ? Promise.resolve() : Promise.race([new Promise<void>((r) => ws.once('drain', r)), failed]);
    },
  };
  const { time, date } = dosTime(o.now ?? new Date());
  const always = o.zip64 === 'always';
  const written: Written[] = [];
  try {
    for (const f of files) {
      written.push(await writeEntry(z, f, { time, date, always, signal: o.signal }));
      o.onFile?.(f.name, written[written.length - 1].size);
    }
    await writeDirectory(z, written, { time, date, always });
    await Promise.race([new Promise<void>((res, rej) => ws.end((e?: Error | null) => (e ? rej(e) : res()))), failed]);
    return { bytes: z.pos, entries: written.length };
  } catch (e) {
    ws.destroy();
    throw e;
  }
}

/**
 * zlib's deflateBound for raw deflate with Node's defaults (window 15, memory level 8): the most
 * `size` bytes can become, ~0.03 % more for incompressible data (~1.25 MiB at 4 GiB). Divisions,
 * not shifts: sizes pass 2^32.
 */
export function deflateBound(size: number): number {
  return size + Math.floor(size / 4096) + Math.floor(size / 16384) + Math.floor(size / 2 ** 25) + 7;
}

/** An entry of `size` bytes needs Zip64 fields when it, or what deflate may make of it, reaches 2^32 - 1. */
export function needsZip64(size: number): boolean {
  return deflateBound(size) >= MAX32;
}

/** One file: its local header, its data through raw deflate, and a data descriptor with its CRC and sizes. */
async function writeEntry(
  z: ZipOut,
  f: { name: string; path: string },
  o: { time: number; date: number; always: boolean; signal?: AbortSignal },
): Promise<Written> {
  const name = Buffer.from(f.name, 'utf8');
  const size0 = (await stat(f.path)).size;
  // deflate can grow incompressible data slightly: decide Zip64 on zlib's bound, before writing the header
  const zip64 = o.always || needsZip64(size0);
  const extra = zip64 ? Buffer.alloc(20) : Buffer.alloc(0);
  if (zip64) {
    extra.writeUInt16LE(0x0001, 0);
    extra.writeUInt16LE(16, 2); // sizes 0: they follow in the descriptor
  }
  const offset = z.pos;
  const h = Buffer.alloc(30);
  h.writeUInt32LE(LOCAL, 0);
  h.writeUInt16LE(zip64 ? 45 : 20, 4);
  h.writeUInt16LE(FLAGS, 6);
  h.writeUInt16LE(8, 8);
  h.writeUInt16LE(o.time, 10);
  h.writeUInt16LE(o.date, 12);
  h.writeUInt32LE(zip64 ? MAX32 : 0, 18);
  h.writeUInt32LE(zip64 ? MAX32 : 0, 22);
  h.writeUInt16LE(name.length, 26);
  h.writeUInt16LE(extra.length, 28);
  await z.write(Buffer.concat([h, name, extra]));
  let crc = 0;
  let size = 0;
  let csize = 0;
  const deflate = createDeflateRaw({ level: 6 });
  const pump = (async () => {
    for await (const c of deflate as AsyncIterable<Buffer>) {
      csize += c.length;
      await z.write(c);
    }
  })();
  for await (const chunk of createReadStream(f.path) as AsyncIterable<Buffer>) {
    if (o.signal?.aborted) throw new LoupeError('cancelled', 'The bundle was cancelled; the partial .zip was removed.');
    crc = crc32(chunk, crc);
    size += chunk.length;
    if (!deflate.write(chunk)) await Promise.race([new Promise<void>((r) => deflate.once('drain', r)), pump]);
  }
  deflate.end();
  await pump;
  const d = Buffer.alloc(zip64 ? 24 : 16);
  d.writeUInt32LE(DESCRIPTOR, 0);
  d.writeUInt32LE(crc >>> 0, 4);
  if (zip64) {
    d.writeBigUInt64LE(BigInt(csize), 8);
    d.writeBigUInt64LE(BigInt(size), 16);
  } else {
    if (csize >= MAX32 || size >= MAX32)
      throw new LoupeError('internal', `${f.name} outgrew a classic zip entry while it was written; nothing was kept.`);
    d.writeUInt32LE(csize, 8);
    d.writeUInt32LE(size, 12);
  }
  await z.write(d);
  return { name, crc: crc >>> 0, size, csize, offset, zip64 };
}

/** The central directory, then (when a count, a size or an offset needs it) the Zip64 end record and locator, then the end record. */
async function writeDirectory(z: ZipOut, written: Written[], o: { time: number; date: number; always: boolean }): Promise<void> {
  const cdStart = z.pos;
  for (const w of written) await z.write(centralEntry(w, o.time, o.date, o.always));
  const cdSize = z.pos - cdStart;
  const need64 = o.always || written.length >= MAX16 || cdStart >= MAX32 || cdSize >= MAX32;
  if (need64) {
    const e = Buffer.alloc(56);
    e.writeUInt32LE(EOCD64, 0);
    e.writeBigUInt64LE(44n, 4);
    e.writeUInt16LE(45, 12);
    e.writeUInt16LE(45, 14);
    e.writeBigUInt64LE(BigInt(written.length), 24);
    e.writeBigUInt64LE(BigInt(written.length), 32);
    e.writeBigUInt64LE(BigInt(cdSize), 40);
    e.writeBigUInt64LE(BigInt(cdStart), 48);
    const at = z.pos;
    await z.write(e);
    const l = Buffer.alloc(20);
    l.writeUInt32LE(LOCATOR64, 0);
    l.writeBigUInt64LE(BigInt(at), 8);
    l.writeUInt32LE(1, 16);
    await z.write(l);
  }
  const end = Buffer.alloc(22);
  end.writeUInt32LE(EOCD, 0);
  end.writeUInt16LE(need64 ? MAX16 : written.length, 8);
  end.writeUInt16LE(need64 ? MAX16 : written.length, 10);
  end.writeUInt32LE(need64 ? MAX32 : cdSize, 12);
  end.writeUInt32LE(need64 ? MAX32 : cdStart, 16);
  await z.write(end);
}

function centralEntry(w: Written, time: number, date: number, always: boolean): Buffer {
  const big = [always || w.size >= MAX32, always || w.csize >= MAX32, always || w.offset >= MAX32];
  const n = big.filter(Boolean).length;
  const extra = Buffer.alloc(n ? 4 + 8 * n : 0);
  if (n) {
    extra.writeUInt16LE(0x0001, 0);
    extra.writeUInt16LE(8 * n, 2);
    let k = 4;
    for (const [i, v] of [w.size, w.csize, w.offset].entries())
      if (big[i]) {
        extra.writeBigUInt64LE(BigInt(v), k);
        k += 8;
      }
  }
  const h = Buffer.alloc(46);
  h.writeUInt32LE(CENTRAL, 0);
  h.writeUInt16LE((3 << 8) | (n || w.zip64 ? 45 : 20), 4); // made by: Unix
  h.writeUInt16LE(n || w.zip64 ? 45 : 20, 6);
  h.writeUInt16LE(FLAGS, 8);
  h.writeUInt16LE(8, 10);
  h.writeUInt16LE(time, 12);
  h.writeUInt16LE(date, 14);
  h.writeUInt32LE(w.crc, 16);
  h.writeUInt32LE(big[1] ? MAX32 : w.csize, 20);
  h.writeUInt32LE(big[0] ? MAX32 : w.size, 24);
  h.writeUInt16LE(w.name.length, 28);
  h.writeUInt16LE(extra.length, 30);
  h.writeUInt32LE((0o100644 << 16) >>> 0, 38);
  h.writeUInt32LE(big[2] ? MAX32 : w.offset, 42);
  return Buffer.concat([h, w.name, extra]);
}

export interface ZipEntry {
  name: string;
  method: number;
  crc: number;
  size: number;
  csize: number;
  offset: number;
}

const bad = (path: string, why: string) => new LoupeError('validation', `${path} is not a readable zip (${why}).`);

async function readAt(fh: FileHandle, at: number, n: number): Promise<Buffer> {
  const b = Buffer.alloc(n);
  const { bytesRead } = await fh.read(b, 0, n, at);
  return b.subarray(0, bytesRead);
}

/** A zip's entries (from its central directory) and a reader of each; close it when done. */
export async function openZip(
  path: string,
): Promise<{ entries: ZipEntry[]; read: (e: ZipEntry) => Promise<Buffer>; close: () => Promise<void> }> {
  const fh = await open(path, 'r');
  try {
    const size = (await fh.stat()).size;
    const tailLen = Math.min(size, 22 + MAX16);
    const tail = await readAt(fh, size - tailLen, tailLen);
    let e = -1;
    for (let i = tail.length - 22; i >= 0 && e < 0; i--) if (tail.readUInt32LE(i) === EOCD) e = i;
    if (e < 0) throw bad(path, 'no end of central directory');
    let count = tail.readUInt16LE(e + 10);
    let cdSize = tail.readUInt32LE(e + 12);
    let cdStart = tail.readUInt32LE(e + 16);
    if (count === MAX16 || cdSize === MAX32 || cdStart === MAX32) {
      const loc = e >= 20 ? tail.subarray(e - 20, e) : Buffer.alloc(0);
      if (loc.length !== 20 || loc.readUInt32LE(0) !== LOCATOR64) throw bad(path, 'a Zip64 end record is announced but missing');
      const rec = await readAt(fh, Number(loc.readBigUInt64LE(8)), 56);
      if (rec.readUInt32LE(0) !== EOCD64) throw bad(path, 'its Zip64 end record is damaged');
      count = Number(rec.readBigUInt64LE(32));
      cdSize = Number(rec.readBigUInt64LE(40));
      cdStart = Number(rec.readBigUInt64LE(48));
    }
    if (cdStart + cdSize > size) throw bad(path, 'its central directory lies past its end: cut short?');
    const cd = await readAt(fh, cdStart, cdSize);
    const entries: ZipEntry[] = [];
    let p = 0;
    for (let k = 0; k < count; k++) {
      if (p + 46 > cd.length || cd.readUInt32LE(p) !== CENTRAL) throw bad(path, `central directory entry ${k + 1} is damaged`);
      const nameLen = cd.readUInt16LE(p + 28);
      const extraLen = cd.readUInt16LE(p + 30);
      const commentLen = cd.readUInt16LE(p + 32);
      const ent: ZipEntry = {
        name: cd.toString('utf8', p + 46, p + 46 + nameLen),
        method: cd.readUInt16LE(p + 10),
        crc: cd.readUInt32LE(p + 16),
        csize: cd.readUInt32LE(p + 20),
        size: cd.readUInt32LE(p + 24),
        offset: cd.readUInt32LE(p + 42),
      };
      for (let x = p + 46 + nameLen; x + 4 <= p + 46 + nameLen + extraLen;) {
        const id = cd.readUInt16LE(x);
        const len = cd.readUInt16LE(x + 2);
        if (id === 0x0001) {
          let q = x + 4;
          for (const f of ['size', 'csize', 'offset'] as const)
            if (ent[f] === MAX32) {
              ent[f] = Number(cd.readBigUInt64LE(q));
              q += 8;
            }
        }
        x += 4 + len;
      }
      entries.push(ent);
      p += 46 + nameLen + extraLen + commentLen;
    }
    const read = async (ent: ZipEntry): Promise<Buffer> => {
      const lh = await readAt(fh, ent.offset, 30);
      if (lh.length < 30 || lh.readUInt32LE(0) !== LOCAL) throw bad(path, `the entry ${ent.name} is damaged`);
      const data = await readAt(fh, ent.offset + 30 + lh.readUInt16LE(26) + lh.readUInt16LE(28), ent.csize);
      if (data.length !== ent.csize) throw bad(path, `the entry ${ent.name} is cut short`);
      let out: Buffer;
      if (ent.method === 0) out = data;
      else if (ent.method === 8) {
        try {
          out = inflateRawSync(data);
        } catch (x) {
          throw bad(path, `the entry ${ent.name} does not inflate: ${(x as Error).message}`);
        }
      } else throw bad(path, `the entry ${ent.name} uses compression method ${ent.method}; Loupe reads stored and deflated entries`);
      if (out.length !== ent.size || crc32(out) >>> 0 !== ent.crc) throw bad(path, `the entry ${ent.name} fails its CRC-32 check: damaged`);
      return out;
    };
    return { entries, read, close: () => fh.close() };
  } catch (e) {
    await fh.close();
    throw e;
  }
}
