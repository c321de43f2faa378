/**
 * Bundles the renderer sends (docs/datasets.md "In the app"): the web door and the desktop's
 * renderer never name a path — they send the bundle's .zip in parts (`datasets.upload`), kept in
 * `<data folder>/uploads/<id>.zip` under an id the core chooses, and verify, import or rehydrate
 * it by that id. Parts arrive in order; an upload older than a day is removed when a new one begins.
 */
import { randomBytes } from 'node:crypto';
import { appendFile, mkdir, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { BundleUpload } from '../../shared/contract-datasets';
import { LoupeError } from '../../shared/errors';

/** bytes in one part (base64 of at most this much) */
export const UPLOAD_PART_BYTES = 1024 * 1024;
/** one upload's limit */
export const UPLOAD_MAX_BYTES = 64 * 1024 ** 3;
const KEEP_MS = 24 * 3_600_000;
const ID = /^[0-9a-f]{32}$/;

export interface BundleUploads {
  put(i: { upload?: string; offset: number; data: string }): Promise<BundleUpload>;
  /** the upload's file; not_found when there is none */
  path(id: string): Promise<string>;
}

export function bundleUploads(dataDir: string, now: () => number = Date.now): BundleUploads {
  const dir = join(dataDir, 'uploads');
  const fileOf = (id: string) => {
    if (!ID.test(id)) throw new LoupeError('validation', `"${id}" is not an upload id.`);
    return join(dir, `${id}.zip`);
  };
  const sizeOf = (f: string) =>
    stat(f).then(
      (s) => s.size,
      () => null,
    );

  async function sweep(): Promise<void> {
    for (const name of await readdir(dir).catch(() => [] as string[])) {
      if (!/^[0-9a-f]{32}\.zip$/.test(name)) continue;
      const s = await stat(join(dir, name)).catch(() => null);
      if (s && now() - s.mtimeMs > KEEP_MS) await rm(join(dir, name), { force: true });
    }
  }

  return {
    async put(i) {
      const bytes = Buffer.from(i.data, 'base64');
      if (bytes.length > UPLOAD_PART_BYTES)
        throw new LoupeError('validation', `A part holds at most ${UPLOAD_PART_BYTES} bytes; this one holds ${bytes.length}.`);
      if (i.upload === undefined) {
        if (i.offset !== 0) throw new LoupeError('validation', 'A new upload starts at byte 0.');
        await mkdir(dir, { recursive: true });
        await sweep();
        const id = randomBytes(16).toString('hex');
        await writeFile(fileOf(id), bytes, { flag: 'wx' });
        return { upload: id, bytes: bytes.length };
      }
      const f = fileOf(i.upload);
      const size = await sizeOf(f);
      if (size === null) throw new LoupeError('not_found', 'No such upload (removed after a day, or never begun): send the bundle again.');
      if (size !== i.offset)
        throw new LoupeError(
          'validation',
          `This part starts at byte ${i.offset} but the upload holds ${size} bytes: send from byte ${size}.`,
        );
      if (size + bytes.length > UPLOAD_MAX_BYTES)
        throw new LoupeError(
          'validation',
          `A bundle sent to Loupe holds at most ${UPLOAD_MAX_BYTES} bytes; use the command line for a larger one.`,
        );
      await appendFile(f, bytes);
      return { upload: i.upload, bytes: size + bytes.length };
    },
    async path(id) {
      const f = fileOf(id);
      if ((await sizeOf(f)) === null)
        throw new LoupeError('not_found', 'No such upload (removed after a day, or never begun): send the bundle again.');
      return f;
    },
  };
}
