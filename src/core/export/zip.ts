/**
 * A streaming ZIP writer for the XLSX export (docs/export.md "XLSX"): entries deflated by node:zlib
 * (in its thread pool, so compression runs beside the thread that renders rows), CRC-32 by
 * `zlib.crc32`, no dependency. Big entries are streamed: a local header without sizes (flag bit 3),
 * the deflated bytes, then a data descriptor; the central directory at the end holds every size.
 * Zip64 is written where it is needed — an entry or an offset at or past 4 GiB (a sheet of a million
 * rows of 82 columns can pass 4 GiB of XML), or more than 65,535 entries — as Go's archive/zip and
 * Java's ZipOutputStream do: the Zip64 extra field in the central directory, a data descriptor with
 * 8-byte sizes, the Zip64 end-of-central-directory record and its locator.
 */
import { createWriteStream, type WriteStream } from 'node:fs';
import { constants, createDeflateRaw, crc32, deflateRawSync, type DeflateRaw, type ZlibOptions } from 'node:zlib';

const U32 = 0xffff_ffff;
/** bytes the file stream and the deflater may hold before a write waits */
const WRITE_AHEAD = 1 << 20;
const DEFLATE_AHEAD = 4 << 20;
/** zlib's output buffer: a 256 KiB piece of XML deflates into one (fewer round trips to the thread pool) */
const DEFLATE_CHUNK = 64 * 1024;

export interface ZipOptions {
  /** deflate level (1: fastest; XML compresses ~10× even so) */
  level?: number;
  /** write every entry and the end record as Zip64 (tests: the Zip64 path without 4 GiB of data) */
  forceZip64?: boolean;
  /** the entries' modification time (default now) */
  date?: Date;
}

interface Entry {
  name: Buffer;
  crc: number;
  csize: number;
  usize: number;
  offset: number;
  /** written with a data descriptor (flag bit 3) */
  streamed: boolean;
}

/** DOS date and time of the entries (local time, as zip tools read it; 2-second steps). */
function dosTime(d: Date): { time: number; date: number } {
  const y = Math.min(Math.max(d.getFullYear(), 1980), 2107);
  return {
    time: (d.getHours() << 11) | (d.getMinutes() << 5) | (d.getSeconds() >> 1),
    date: ((y - 1980) << 9) | ((d.getMonth() + 1) << 5) | d.getDate(),
  };
}

export class ZipWriter {
  private readonly entries: Entry[] = [];
  private offset = 0;
  private err: Error | null = null;
  private readonly level: number;
  private readonly force: boolean;
  private readonly dos: { time: number; date: number };
  private open: ZipEntryStream | ZipPieceEntry | null = null;

  private constructor(
    private readonly ws: WriteStream,
    o: ZipOptions,
  ) {
    this.level = o.level ?? 1;
    this.force = o.forceZip64 ?? false;
    this.dos = dosTime(o.date ?? new Date());
    ws.on('error', (e) => (this.err ??= e));
  }

  /** Create `path` (it must not exist: 'wx') and write a ZIP into it. */
  static async create(path: string, o: ZipOptions = {}): Promise<ZipWriter> {
    const ws = createWriteStream(path, { flags: 'wx', flush: true, highWaterMark: WRITE_AHEAD });
    await new Promise<void>((res, rej) => {
      ws.once('open', () => res());
      ws.once('error', rej);
    });
    return new ZipWriter(ws, o);
  }

  /** Bytes to the file, waiting while the file stream holds more than 1 MiB. */
  async raw(b: Buffer): Promise<void> {
    if (this.err) throw this.err;
    this.offset += b.length;
    if (!this.ws.write(b)) await waitDrain(this.ws, () => this.err);
    if (this.err) throw this.err;
  }

  private localHeader(name: Buffer, crc: number, csize: number, usize: number, streamed: boolean): Buffer {
    const h = Buffer.alloc(30);
    h.writeUInt32LE(0x04034b50, 0);
    h.writeUInt16LE(20, 4);
    h.writeUInt16LE(0x0800 | (streamed ? 0x0008 : 0), 6); // UTF-8 names; sizes after the data
    h.writeUInt16LE(8, 8); // deflate
    h.writeUInt16LE(this.dos.time, 10);
    h.writeUInt16LE(this.dos.date, 12);
    h.writeUInt32LE(crc, 14);
    h.writeUInt32LE(csize, 18);
    h.writeUInt32LE(usize, 22);
    h.writeUInt16LE(name.length, 26);
    return Buffer.concat([h, name]);
  }

  /** A small entry, compressed at once (its sizes in the local header). */
  async add(name: string, content: string | Buffer): Promise<void> {
    if (this.open) throw new Error(`zip: ${name} added while ${this.open.name} is still open`);
    const data = typeof content === 'string' ? Buffer.from(content, 'utf8') : content;
    const packed = deflateRawSync(data, { level: this.level });
    if (data.length >= U32 || packed.length >= U32) throw new Error(`zip: ${name} is too large to add at once; stream it`);
    const e: Entry = {
      name: Buffer.from(name, 'utf8'),
      crc: crc32(data),
      csize: packed.length,
      usize: data.length,
      offset: this.offset,
      streamed: false,
    };
    await this.raw(this.localHeader(e.name, e.crc, e.csize, e.usize, false));
    await this.raw(packed);
    this.entries.push(e);
  }

  /** A big entry, written as it comes: `write` its text or bytes, then `close` it. */
  async stream(name: string): Promise<ZipEntryStream> {
    if (this.open) throw new Error(`zip: ${name} opened while ${this.open.name} is still open`);
    const e: Entry = { name: Buffer.from(name, 'utf8'), crc: 0, csize: 0, usize: 0, offset: this.offset, streamed: true };
    await this.raw(this.localHeader(e.name, 0, 0, 0, true));
    // zlib passes stream options on to its Transform (its typings name only zlib's own)
    const zo: ZlibOptions & { writableHighWaterMark: number } = {
      level: this.level,
      chunkSize: DEFLATE_CHUNK,
      writableHighWaterMark: DEFLATE_AHEAD,
    };
    this.open = new ZipEntryStream(name, this, e, createDeflateRaw(zo), () => {
      this.entries.push(e);
      this.open = null;
    });
    return this.open;
  }

  /**
   * A big entry written from raw-deflate pieces made elsewhere (deflatePiece: XLSX workers compress
   * their own rows, xlsx-rids.ts): `piece` them in order, then `close` it.
   */
  async pieces(name: string): Promise<ZipPieceEntry> {
    if (this.open) throw new Error(`zip: ${name} opened while ${this.open.name} is still open`);
    const e: Entry = { name: Buffer.from(name, 'utf8'), crc: 0, csize: 0, usize: 0, offset: this.offset, streamed: true };
    await this.raw(this.localHeader(e.name, 0, 0, 0, true));
    this.open = new ZipPieceEntry(name, this, e, this.level, () => {
      this.entries.push(e);
      this.open = null;
    });
    return this.open;
  }

  /** The central directory and the end records; the file is flushed to disk and closed. */
  async finish(): Promise<number> {
    if (this.open) throw new Error(`zip: ${this.open.name} is still open`);
    const start = this.offset;
    for (const e of this.entries) await this.raw(this.central(e));
    const size = this.offset - start;
    const n = this.entries.length;
    const z64 = this.force || n > 0xffff || start >= U32 || size >= U32;
    if (z64) {
      const rec = Buffer.alloc(56 + 20);
      rec.writeUInt32LE(0x06064b50, 0);
      rec.writeBigUInt64LE(44n, 4);
      rec.writeUInt16LE(45, 12);
      rec.writeUInt16LE(45, 14);
      rec.writeBigUInt64LE(BigInt(n), 24);
      rec.writeBigUInt64LE(BigInt(n), 32);
      rec.writeBigUInt64LE(BigInt(size), 40);
      rec.writeBigUInt64LE(BigInt(start), 48);
      rec.writeUInt32LE(0x07064b50, 56); // the locator
      rec.writeBigUInt64LE(BigInt(start + size), 64);
      rec.writeUInt32LE(1, 72);
      await this.raw(rec);
    }
    const end = Buffer.alloc(22);
    end.writeUInt32LE(0x06054b50, 0);
    end.writeUInt16LE(z64 ? 0xffff : n, 8);
    end.writeUInt16LE(z64 ? 0xffff : n, 10);
    end.writeUInt32LE(z64 ? U32 : size, 12);
    end.writeUInt32LE(z64 ? U32 : start, 16);
    await this.raw(end);
    await new Promise<void>((res, rej) => this.ws.end((e?: Error | null) => (e ? rej(e) : res())));
    if (this.err) throw this.err;
    return this.offset;
  }

  private central(e: Entry): Buffer {
    const big = this.force || e.usize >= U32 || e.csize >= U32 || e.offset >= U32;
    const h = Buffer.alloc(46);
    h.writeUInt32LE(0x02014b50, 0);
    h.writeUInt16LE(big ? 45 : 20, 4); // made by: MS-DOS attributes, this version of the format
    h.writeUInt16LE(big ? 45 : 20, 6);
    h.writeUInt16LE(0x0800 | (e.streamed ? 0x0008 : 0), 8);
    h.writeUInt16LE(8, 10);
    h.writeUInt16LE(this.dos.time, 12);
    h.writeUInt16LE(this.dos.date, 14);
    h.writeUInt32LE(e.crc, 16);
    h.writeUInt32LE(big ? U32 : e.csize, 20);
    h.writeUInt32LE(big ? U32 : e.usize, 24);
    h.writeUInt16LE(e.name.length, 28);
    h.writeUInt16LE(big ? 28 : 0, 30);
    h.writeUInt32LE(big ? U32 : e.offset, 42);
    if (!big) return Buffer.concat([h, e.name]);
    const x = Buffer.alloc(28);
    x.writeUInt16LE(0x0001, 0);
    x.writeUInt16LE(24, 2);
    x.writeBigUInt64LE(BigInt(e.usize), 4);
    x.writeBigUInt64LE(BigInt(e.csize), 12);
    x.writeBigUInt64LE(BigInt(e.offset), 20);
    return Buffer.concat([h, e.name, x]);
  }

  /** Stop writing and release the file (after a failure or a cancel); the caller removes it. */
  async destroy(): Promise<void> {
    this.open?.abandon();
    if (this.ws.closed) return;
    await new Promise<void>((res) => {
      this.ws.once('close', () => res());
      this.ws.destroy();
    });
  }
}

/** One streamed entry: text or bytes in, deflated into the ZIP in order, with backpressure. */
export class ZipEntryStream {
  private err: Error | null = null;
  private readonly done: Promise<void>;

  constructor(
    readonly name: string,
    private readonly zip: ZipWriter,
    private readonly e: Entry,
    private readonly z: DeflateRaw,
    private readonly closed: () => void,
  ) {
    z.on('error', (err) => (this.err ??= err));
    // deflated bytes go to the file in order; the deflater pauses while the file is behind
    let chain = Promise.resolve();
    z.on('data', (b: Buffer) => {
      e.csize += b.length;
      z.pause();
      chain = chain.then(async () => {
        if (this.err) return;
        try {
          await zip.raw(b);
          z.resume();
        } catch (err) {
          this.err ??= err as Error;
          z.destroy(err as Error);
        }
      });
    });
    this.done = new Promise<void>((res, rej) => {
      z.once('end', () => void chain.then(() => (this.err ? rej(this.err) : res())));
      z.once('error', rej);
    });
    this.done.catch(() => undefined);
  }

  /** Append text (UTF-8) or bytes; waits while the deflater holds more than 4 MiB. */
  async write(s: string | Buffer): Promise<void> {
    if (this.err) throw this.err;
    const b = typeof s === 'string' ? Buffer.from(s, 'utf8') : s;
    if (b.length === 0) return;
    this.e.crc = crc32(b, this.e.crc);
    this.e.usize += b.length;
    if (!this.z.write(b)) await waitDrain(this.z, () => this.err);
    if (this.err) throw this.err;
  }

  /** End the entry: the rest of its deflated bytes, then its data descriptor. */
  async close(): Promise<void> {
    this.z.end();
    await this.done;
    if (this.err) throw this.err;
    await this.zip.raw(descriptor(this.e));
    this.closed();
  }

  abandon(): void {
    this.z.destroy();
  }
}

function waitDrain(s: WriteStream | DeflateRaw, failed: () => Error | null): Promise<void> {
  return new Promise<void>((res, rej) => {
    const cleanup = (): void => {
      s.off('drain', onDrain);
      s.off('error', onErr);
      s.off('close', onDrain);
    };
    const onDrain = (): void => {
      cleanup();
      const e = failed();
      if (e) rej(e);
      else res();
    };
    const onErr = (e: Error): void => (cleanup(), rej(e));
    s.on('drain', onDrain);
    s.on('error', onErr);
    s.on('close', onDrain);
  });
}

/** The data descriptor after a streamed entry's bytes: its CRC-32 and sizes (8-byte sizes past 4 GiB). */
function descriptor(e: Entry): Buffer {
  const z64 = e.usize >= U32 || e.csize >= U32;
  const d = Buffer.alloc(z64 ? 24 : 16);
  d.writeUInt32LE(0x08074b50, 0);
  d.writeUInt32LE(e.crc, 4);
  if (z64) {
    d.writeBigUInt64LE(BigInt(e.csize), 8);
    d.writeBigUInt64LE(BigInt(e.usize), 16);
  } else {
    d.writeUInt32LE(e.csize, 8);
    d.writeUInt32LE(e.usize, 12);
  }
  return d;
}

/** A piece of an entry's data, deflated on its own: its raw-deflate bytes, CRC-32 and length. */
export interface DeflatedPiece {
  bytes: Uint8Array;
  crc: number;
  usize: number;
}

/** the last block of a raw-deflate stream: an empty fixed-Huffman block marked final */
const FINAL_BLOCK = Buffer.from([0x03, 0x00]);

/**
 * `data` as a piece of a raw-deflate stream: compressed on its own (no reference to the pieces
 * before it) and ended with a sync flush (on a byte boundary, not final), so pieces made anywhere
 * (a worker thread) follow one another in one entry, which ZipPieceEntry ends with the final block.
 */
export function deflatePiece(data: Uint8Array, level: number): DeflatedPiece {
  return { bytes: deflateRawSync(data, { level, finishFlush: constants.Z_SYNC_FLUSH }), crc: crc32(data), usize: data.length };
}

/** CRC-32 (zlib's polynomial, reflected) of a product of two polynomials modulo it (zlib's multmodp). */
function multModP(a: number, b: number): number {
  let m = 0x8000_0000;
  let p = 0;
  for (;;) {
    if (a & m) {
      p ^= b;
      if ((a & (m - 1)) === 0) break;
    }
    m >>>= 1;
    b = b & 1 ? (b >>> 1) ^ 0xedb8_8320 : b >>> 1;
  }
  return p >>> 0;
}

/** x^(2^k) modulo the polynomial, k = 0…31 (zlib's x2n_table) */
const X2N = ((): number[] => {
  const t: number[] = [];
  let p = 0x4000_0000; // x^1
  for (let k = 0; k < 32; k++) {
    t.push(p);
    p = multModP(p, p);
  }
  return t;
})();

/**
 * The CRC-32 of A followed by B from A's CRC, B's CRC and B's length (zlib's crc32_combine, which
 * node:zlib does not expose): pieces made on other threads are checked as one entry.
 */
export function crc32Combine(crcA: number, crcB: number, lengthB: number): number {
  // x^(8 * lengthB) modulo the polynomial: the bits of the length in bytes, from x^(2^3) on
  let p = 0x8000_0000; // x^0
  let k = 3;
  for (let n = lengthB; n > 0; n = Math.floor(n / 2), k++) if (n % 2 === 1) p = multModP(X2N[k & 31], p);
  return (multModP(p, crcA) ^ crcB) >>> 0;
}

/** An entry written from pieces deflated elsewhere (ZipWriter.pieces). */
export class ZipPieceEntry {
  constructor(
    readonly name: string,
    private readonly zip: ZipWriter,
    private readonly e: Entry,
    private readonly level: number,
    private readonly closed: () => void,
  ) {}

  /** Append text (UTF-8) or bytes, deflated here as one piece. */
  async write(s: string | Buffer): Promise<void> {
    const b = typeof s === 'string' ? Buffer.from(s, 'utf8') : s;
    if (b.length > 0) await this.piece(deflatePiece(b, this.level));
  }

  /** Append a piece (deflatePiece), in order. */
  async piece(p: DeflatedPiece): Promise<void> {
    if (p.usize === 0) return;
    this.e.crc = crc32Combine(this.e.crc, p.crc, p.usize);
    this.e.usize += p.usize;
    this.e.csize += p.bytes.length;
    await this.zip.raw(Buffer.from(p.bytes.buffer, p.bytes.byteOffset, p.bytes.length));
  }

  /** End the entry: the final block, then the data descriptor. */
  async close(): Promise<void> {
    this.e.csize += FINAL_BLOCK.length;
    await this.zip.raw(FINAL_BLOCK);
    await this.zip.raw(descriptor(this.e));
    this.closed();
  }

  abandon(): void {}
}
