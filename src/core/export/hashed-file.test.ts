/**
 * A bundle's file writer (bundle-tables.ts HashedFile) over a file handle that takes fewer bytes
 * than it is given in one call, as write(2) does past ~2 GiB on Linux: every byte reaches the file,
 * in order, and the hash is the hash of those bytes.
 */
import { createHash } from 'node:crypto';
import type { FileHandle } from 'node:fs/promises';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { HashedFile } from './bundle-tables';

/** a handle that keeps what it is given, taking at most `most` bytes a call */
function shortWriter(most: number): { fh: FileHandle; got: () => Buffer } {
  const parts: Buffer[] = [];
  const fh = {
    write: async (b: Uint8Array, offset = 0, length = b.length - offset) => {
      const n = Math.min(most, length);
      parts.push(Buffer.from(b.subarray(offset, offset + n)));
      return { bytesWritten: n, buffer: b };
    },
    close: async () => undefined,
  } as unknown as FileHandle;
  return { fh, got: () => Buffer.concat(parts) };
}

describe('HashedFile', () => {
  it('writes every byte in order when each call takes only part of them', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.uint8Array({ maxLength: 300 }), { maxLength: 8 }),
        fc.integer({ min: 1, max: 64 }),
        async (chunks, most) => {
          const { fh, got } = shortWriter(most);
          const f = new HashedFile(fh);
          for (const c of chunks) await f.write(c);
          const all = Buffer.concat(chunks.map((c) => Buffer.from(c)));
          expect(got().equals(all)).toBe(true);
          expect(f.bytes).toBe(all.length);
          expect(await f.close()).toBe(createHash('sha256').update(all).digest('hex'));
        },
      ),
    );
  });

  it('fails rather than spin when the file takes no bytes', async () => {
    const f = new HashedFile(shortWriter(0).fh);
    await expect(f.write(new Uint8Array([1, 2, 3]))).rejects.toThrow('took no bytes');
  });
});
