import { createHash } from 'node:crypto';

/** Canonical JSON of query params: keys sorted, values as strings. Never contains the key. */
export function canonicalParams(params: Record<string, string>): string {
  const out: Record<string, string> = {};
  for (const k of Object.keys(params).sort()) out[k] = String(params[k]);
  return JSON.stringify(out);
}

export function sha256(s: string): string {
  return createHash('sha256').update(s).digest('hex');
}

/** Hash of the exact call: platform + endpoint + canonical params. */
export function paramsHash(canonical: string): string {
  return sha256(canonical);
}

/**
 * Normalises an endpoint path given as `profile/posts`, `/profile/posts`,
 * `photo_net/profile/posts`, `/v1/photo_net/profile/posts` or a full URL to
 * the path after the platform (`profile/posts`).
 */
export function normalizeEndpoint(platform: string, endpoint: string): string {
  let p = endpoint.trim();
  const q = p.indexOf('?');
  if (q >= 0) p = p.slice(0, q);
  try {
    if (/^https?:\/\//i.test(p)) p = new URL(p).pathname;
  } catch {
    /* keep as is */
  }
  p = p.replace(/^\/+/, '').replace(/\/+$/, '');
  if (p.startsWith('v1/')) p = p.slice(3);
  if (platform && p.startsWith(platform + '/')) p = p.slice(platform.length + 1);
  return p;
}

/** Strips the key (if any) from text before it is logged, stored or shown. */
export function redact(text: string, key: string | null | undefined): string {
  if (!key || key.length < 4) return text;
  return text.split(key).join('[redacted-key]');
}
