import { UsageError } from './context';

/** `platform/path` or `/v1/platform/path` → { platform, endpoint }. */
export function parseTarget(s: string): { platform: string; endpoint: string } {
  const parts = s.replace(/^\/+/, '').replace(/^v1\//, '').split('/').filter(Boolean);
  if (parts.length < 2) throw new UsageError(`An endpoint is written <platform>/<path>, e.g. photo_net/profile/posts; got "${s}".`);
  return { platform: parts[0], endpoint: parts.slice(1).join('/') };
}

export function parseParams(list: string[] | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const p of list ?? []) {
    const i = p.indexOf('=');
    if (i <= 0) throw new UsageError(`--param takes name=value; got "${p}".`);
    out[p.slice(0, i)] = p.slice(i + 1);
  }
  return out;
}

