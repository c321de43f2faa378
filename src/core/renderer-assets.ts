/**
 * What both UI doors (the Electron custom protocol in src/main and the web host in src/host) send
 * with the built renderer: one Content-Security-Policy, one MIME table and one way to find the file
 * answering a path (`rendererFile`), so the two cannot drift.
 */
import { existsSync, statSync } from 'node:fs';
import { extname, join, resolve, sep } from 'node:path';

/** CSP of every HTML answer. Styles allow inline attributes (React sets element styles); scripts do not. */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: https:",
  "media-src 'self' https:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

export const MIME_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.webp': 'image/webp',
  '.ico': 'image/x-icon',
  '.woff': 'font/woff',
  '.woff2': 'font/woff2',
  '.ttf': 'font/ttf',
  '.txt': 'text/plain; charset=utf-8',
  '.csv': 'text/csv; charset=utf-8',
  '.jsonl': 'application/x-ndjson; charset=utf-8',
  '.wasm': 'application/wasm',
};

/** Which file of the built renderer answers a request path (both UI doors serve it through this). */
export type RendererFile =
  /** a file under the build: its path, content type, and whether it is HTML (then it carries the CSP) */
  | { kind: 'file'; file: string; contentType: string; html: boolean }
  /** the path cannot be decoded or holds a NUL */
  | { kind: 'bad_path' }
  /** outside the build, or a missing file with an extension */
  | { kind: 'not_found' }
  /** an extension-less path (a client-side route) and no index.html: the renderer is not built */
  | { kind: 'not_built' };

/**
 * The renderer file for `pathname` under `root`: the file itself (never outside `root`), index.html
 * for extension-less paths (client-side routes), not_found otherwise.
 */
export function rendererFile(root: string, pathname: string): RendererFile {
  const base = resolve(root);
  let rel: string;
  try {
    rel = decodeURIComponent(pathname);
  } catch {
    return { kind: 'bad_path' };
  }
  if (rel.includes('\0')) return { kind: 'bad_path' };
  let file = resolve(join(base, rel));
  if (file !== base && !file.startsWith(base + sep)) return { kind: 'not_found' };
  let isFile = false;
  try {
    isFile = statSync(file).isFile();
  } catch {}
  if (!isFile) {
    // SPA fallback: a path without a file extension is a client-side route
    if (extname(rel) && rel !== '/') return { kind: 'not_found' };
    file = join(base, 'index.html');
    if (!existsSync(file)) return { kind: 'not_built' };
  }
  const ext = extname(file).toLowerCase();
  return { kind: 'file', file, contentType: MIME_TYPES[ext] ?? 'application/octet-stream', html: ext === '.html' };
}
