/**
 * The renderer is served from a privileged custom scheme (loupe://app/) so its CSP is a real
 * response header, its origin is stable, and nothing is read from file:// URLs.
 */
import { protocol } from 'electron';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { extname, join, resolve, sep } from 'node:path';
import { CONTENT_SECURITY_POLICY, MIME_TYPES } from '../core/renderer-assets';

export const SCHEME = 'loupe';
export const APP_ORIGIN = `${SCHEME}://app`;
export const CSP = CONTENT_SECURITY_POLICY;
export const MIME = MIME_TYPES;

/** Must run before the app is ready (Electron's rule for privileged schemes). */
export function registerScheme(): void {
  protocol.registerSchemesAsPrivileged([{ scheme: SCHEME, privileges: { standard: true, secure: true, supportFetchAPI: true } }]);
}

/**
 * The answer to one loupe:// request: a file under `rendererDir` (never outside it), index.html for
 * extension-less paths (client-side routes), 404 otherwise; every HTML answer carries the CSP.
 */
export function rendererResponse(rendererDir: string, requestUrl: string): Response {
  const root = resolve(rendererDir);
  const url = new URL(requestUrl);
  if (url.protocol !== `${SCHEME}:` || url.host !== 'app') return new Response('Not found', { status: 404 });
  let rel: string;
  try {
    rel = decodeURIComponent(url.pathname);
  } catch {
    return new Response('Not found', { status: 404 });
  }
  let file = resolve(join(root, rel));
  if (file !== root && !file.startsWith(root + sep)) return new Response('Not found', { status: 404 });
  let ok = false;
  try {
    ok = statSync(file).isFile();
  } catch {}
  if (!ok) {
    if (extname(rel)) return new Response('Not found', { status: 404 });
    file = join(root, 'index.html');
  }
  if (!existsSync(file)) return new Response('The renderer is not built: run npm run build.', { status: 503 });
  const ext = extname(file).toLowerCase();
  const headers: Record<string, string> = { 'content-type': MIME[ext] ?? 'application/octet-stream', 'x-content-type-options': 'nosniff' };
  if (ext === '.html') headers['content-security-policy'] = CSP;
  return new Response(readFileSync(file), { status: 200, headers });
}

export function serveRenderer(rendererDir: string): void {
  protocol.handle(SCHEME, (req) => rendererResponse(rendererDir, req.url));
}
