/**
 * The local doors' methods (src/shared/contract-local.ts): `local.exportFile` writes the library
 * query to a path on this machine. Not a contract method — the web host and the renderer cannot
 * reach it (`dispatch` knows only contract.ts's table); the composition hands it to local doors as
 * `LoupeApp.local` (the command line's `loupe export`).
 */
import { lstatSync, readlinkSync, realpathSync } from 'node:fs';
import { dirname, isAbsolute, resolve } from 'node:path';
import type { LocalImpl } from '../../shared/contract-local';
import type { Archive } from '../archive';
import { AppError } from '../bridge';
import { exportAny, exportOptionsError, timelineMark } from '../export';
import { exportAnyOptions } from './export-options';
import { fileWriteError } from '../storage-error';
import type { QueryNames } from '../query-names';

export interface LocalParts {
  archive: Archive;
  dataDir: string;
  /** the query-name check every contract method's query gets (query-names.ts) */
  checkQuery(q: QueryNames): Promise<void>;
}

/**
 * Where to write `file`: the path itself when nothing is there or a regular file is, the target of
 * a symbolic link (a link is written through, never replaced); anything else is refused — a pipe,
 * a device or a folder is the door's to write through (the command line copies a staged file).
 */
function regularFileAt(file: string, links = 0): string {
  if (!isAbsolute(file)) throw new AppError('validation', `The export file must be an absolute path, not "${file}".`);
  let st;
  try {
    st = lstatSync(file);
  } catch {
    return file; // nothing there yet
  }
  if (st.isSymbolicLink()) {
    if (links >= 40) throw new AppError('validation', `${file}: too many symbolic links.`);
    let to: string;
    try {
      to = realpathSync(file);
    } catch {
      to = resolve(dirname(file), readlinkSync(file)); // a dangling link: the file goes where it points
    }
    return regularFileAt(to, links + 1);
  }
  if (!st.isFile())
    throw new AppError('validation', `${file} is not a regular file: a pipe, a device or a folder is written through by the door.`);
  return file;
}

export function localImpl(parts: LocalParts): Pick<LocalImpl, 'local.exportFile'> {
  const { archive, dataDir } = parts;
  return {
    async 'local.exportFile'(i, door = {}) {
      timelineMark('exportFile');
      const bad = exportOptionsError(i);
      if (bad) throw new AppError('validation', bad);
      const out = regularFileAt(i.file);
      // a network, kind or label Loupe does not know is refused naming the nearest, never an empty file
      await parts.checkQuery(i.query);
      const q = i.query;
      const total = archive.count(q);
      timelineMark('counted');
      let r: Awaited<ReturnType<typeof exportAny>>;
      try {
        r = await exportAny(
          archive.iterateExportRows(q),
          exportAnyOptions(i, {
            archive,
            dataDir,
            out,
            of: { query: q },
            signal: door.signal,
            total,
            onProgress: (rows) => door.onEvent?.({ type: 'export-rows', rows, total }),
          }),
        );
      } catch (e) {
        // the file system's failure writing the export (a full disk, a file-size limit, a read-only
        // folder): the storage sentence naming the file, exit 6 — before, "Internal error: ENOSPC"
        throw (
          fileWriteError(e, out, {
            what: 'the export file',
            wayOut: 'free some space or choose another folder, then export again (nothing was left under that name)',
          }) ?? e
        );
      }
      return {
        path: r.path,
        rows: r.rows,
        summary: r.summary,
        files: (r.files ?? []).map((f) => ({ table: f.table, path: f.path, rows: f.rows })),
      };
    },
  };
}
