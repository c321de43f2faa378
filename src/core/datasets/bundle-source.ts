/**
 * Where a bundle is read from: a folder, or a `.zip` of one (zip.ts). verify and import read the
 * same files either way. A zip may hold the files at its root or inside one folder (a bundle folder
 * zipped by hand); its directory entries and macOS's `__MACOSX/` metadata are not bundle files. A
 * zip holding one name twice is refused.
 */
import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { LoupeError } from '../../shared/errors';
import { openZip, type ZipEntry } from './zip';

export interface BundleSource {
  /** what the problems name: the folder or the zip */
  where: string;
  /** the files it holds (names relative to the bundle) */
  names: string[];
  /** a file's bytes, or null when it is not there */
  read(name: string): Promise<Buffer | null>;
  close(): Promise<void>;
}

export const isZipPath = (p: string): boolean => /\.zip$/i.test(p);

/**
 * verify, import and rehydrate read each bundle file whole, and Node reads at most 2 GiB at once
 * (fs.readFile; a zip entry is inflated into one buffer): a larger file is refused in words
 * (before, "Internal error: File size … is greater than 2 GiB"). ~1.5 KB an item in items.jsonl
 * and answers.jsonl: about 1.4 million items.
 */
const WHOLE_MAX = 2 ** 31 - 1;
const tooLarge = (where: string, name: string, bytes: number) =>
  new LoupeError(
    'not_available',
    `${name} in ${where} is ${bytes.toLocaleString('en-US')} bytes: this Loupe reads each bundle file whole and verifies, imports and rehydrates bundles whose files are each at most 2 GiB (about 1.4 million items); nothing was imported. Each file's SHA-256 can still be compared with manifest.json's (sha256sum).`,
  );

export async function openBundle(path: string): Promise<BundleSource> {
  let st;
  try {
    st = await stat(path);
  } catch (e) {
    throw new LoupeError(
      'validation',
      `${path}: ${(e as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such folder or file' : (e as Error).message}; give a bundle folder or its .zip.`,
    );
  }
  if (st.isDirectory()) {
    const names = [];
    for (const d of await readdir(path, { withFileTypes: true })) if (!d.isDirectory()) names.push(d.name);
    return {
      where: path,
      names,
      read: async (name) => {
        const size = await stat(join(path, name)).then(
          (s) => s.size,
          () => 0,
        );
        if (size > WHOLE_MAX) throw tooLarge(path, name, size);
        return readFile(join(path, name)).catch((e: NodeJS.ErrnoException) => (e.code === 'ENOENT' ? null : Promise.reject(e)));
      },
      close: async () => undefined,
    };
  }
  const zip = await openZip(path);
  const files = zip.entries.filter((e) => !e.name.endsWith('/') && !e.name.startsWith('__MACOSX/'));
  // the bundle's root: where manifest.json is (the zip's root, or one folder inside it)
  const manifests = files.filter((e) => e.name === 'manifest.json' || /^[^/]+\/manifest\.json$/.test(e.name));
  const prefix =
    manifests.some((e) => e.name === 'manifest.json') || manifests.length !== 1 ? '' : manifests[0].name.slice(0, -'manifest.json'.length);
  const byName = new Map<string, ZipEntry>();
  for (const e of files) {
    const name = e.name.startsWith(prefix) ? e.name.slice(prefix.length) : `../${e.name}`;
    // two entries of one name: tools differ in which they read (Python and unzip the last, others the
    // first), so a tampered copy beside the original would verify: refused, naming the file
    if (byName.has(name)) {
      await zip.close();
      throw new LoupeError(
        'validation',
        `${path} holds ${e.name} twice: a zip with two entries of one name is not a bundle (tools disagree on which one they read).`,
      );
    }
    byName.set(name, e);
  }
  return {
    where: path,
    names: [...byName.keys()],
    read: async (name) => {
      const e = byName.get(name);
      if (e && Math.max(e.size, e.csize) > WHOLE_MAX) throw tooLarge(path, name, e.size);
      return e ? zip.read(e) : null;
    },
    close: zip.close,
  };
}
