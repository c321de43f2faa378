/**
 * A bundle's manifest.json written in pieces (issue 29; docs/datasets.md "The manifest"): the bytes
 * of `JSON.stringify(value, null, 1) + '\n'`, without that text as one string nor its copy as one
 * buffer (200k items: 61 MB each, faulted in page by page, then collected). The manifest is
 * stringified with its big array empty, and that array's elements are written in its place a
 * slice at a time — each slice stringified at the array's depth, or an element's text given by the
 * caller — gathered in one buffer (4 MiB) written out when full. Tested equal to the one-string
 * text (manifest-text.test.ts).
 */
import { open, type FileHandle } from 'node:fs/promises';

/**
 * elements stringified (or joined) at once: a slice's text (~300 bytes an item) stays under V8's
 * large-object size (128 KiB), so each is a young string that dies young, not a page mapping of
 * its own faulted in and unmapped (4,096 a slice: ~1.2 MB each, ~30,000 page faults at 200k items)
 */
const SLICE = 256;

/** Text out to a file through one buffer, written out when full (grown when a piece needs more). */
class TextOut {
  private buf: Buffer;
  private at = 0;
  constructor(
    private readonly fh: FileHandle,
    bytes: number,
  ) {
    this.buf = Buffer.allocUnsafeSlow(bytes);
  }
  async put(s: string): Promise<void> {
    // a UTF-16 code unit is at most 3 bytes of UTF-8
    if (this.buf.length - this.at < s.length * 3) {
      await this.flush();
      if (this.buf.length < s.length * 3) this.buf = Buffer.allocUnsafeSlow(s.length * 3);
    }
    this.at += this.buf.write(s, this.at);
  }
  async flush(): Promise<void> {
    const n = this.at;
    this.at = 0;
    for (let at = 0; at < n;) {
      const { bytesWritten } = await this.fh.write(this.buf, at, n - at);
      if (bytesWritten <= 0) throw new Error(`the manifest took no bytes (${n - at} left to write)`);
      at += bytesWritten;
    }
  }
}

/**
 * Writes `JSON.stringify(value, null, 1) + '\n'` to `path` (a new file, or one replaced), the
 * array `value[key]` (a key of `value` itself) a slice at a time. `element`: an element's text as
 * that stringify writes it inside the array (indented two spaces; the caller's fast path for
 * elements of one known shape), else each slice is stringified.
 */
export async function writeJsonInPieces(
  path: string,
  value: Record<string, unknown>,
  key: string,
  element?: (e: never) => string,
  slice = SLICE,
  /** the buffer's size (tests: a few bytes, to write it out often) */
  bufferBytes = 1 << 22,
): Promise<void> {
  const all = value[key];
  const fh = await open(path, 'w');
  try {
    const out = new TextOut(fh, bufferBytes);
    const text = Array.isArray(all) && all.length > 0 ? JSON.stringify({ ...value, [key]: [] }, null, 1) : null;
    // the array's place: the key at depth 1 (one space), the only line of its kind
    const marker = `\n ${JSON.stringify(key)}: []`;
    const at = text === null ? -1 : text.indexOf(marker);
    if (text === null || at < 0 || text.indexOf(marker, at + 1) >= 0 || !Array.isArray(all)) {
      await out.put(JSON.stringify(value, null, 1) + '\n');
      await out.flush();
      return;
    }
    await out.put(`${text.slice(0, at + marker.length - 2)}[\n`);
    for (let i = 0; i < all.length; i += slice) {
      const part = all.slice(i, i + slice);
      let piece: string;
      if (element) piece = part.map((e) => element(e as never)).join(',\n');
      else {
        // the slice as the array inside an array: its elements at the depth they have in `value`
        const s = JSON.stringify([part], null, 1);
        piece = s.slice('[\n [\n'.length, s.length - '\n ]\n]'.length);
      }
      // the separator apart: no joined copy of the piece
      if (i > 0) await out.put(',\n');
      await out.put(piece);
    }
    await out.put(`\n ]${text.slice(at + marker.length)}\n`);
    await out.flush();
  } finally {
    await fh.close();
  }
}
