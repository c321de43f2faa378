/**
 * The renderer is served from a privileged custom scheme (loupe://app/) so its CSP is a real
 * response header, its origin is stable, and nothing is read from file:// URLs.
 */
import { protocol } from 'electron';
import { readFileSync } from 'node:fs';
import { CONTENT_SECURITY_POLICY, MIME_TYPES, rendererFile } from '../core/renderer-assets';

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
  const url = new URL(requestUrl);
  if (url.protocol !== `${SCHEME}:` || url.host !== 'app') return new Response('Not found', { status: 404 });
  const f = rendererFile(rendererDir, url.pathname);
  if (f.kind === 'bad_path' || f.kind === 'not_found') return new Response('Not found', { status: 404 });
  if (f.kind === 'not_built') return new Response('The renderer is not built: run npm run build.', { status: 503 });
  const headers: Record<string, string> = { 'content-type': f.contentType, 'x-content-type-options': 'nosniff' };
  if (f.html) headers['content-security-policy'] = CSP;
  return new Response(readFileSync(f.file), { status: 200, headers });
}

export function serveRenderer(rendererDir: string): void {
  protocol.handle(SCHEME, (req) => rendererResponse(rendererDir, req.url));
}
