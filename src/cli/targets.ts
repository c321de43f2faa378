import { UsageError } from './context';

/** `platform/path` or `/v1/platform/path` → { platform, endpoint }. */
export function parseTarget(s: string): { platform: string; endpoint: string } {
  const parts = s.replace(/^\/+/, '').replace(/^v1\//, '').split('/').filter(Boolean);
  if (parts.length < 2) throw new UsageError(`An endpoint is written <platform>/<path>, e.g. photo_net/profile/posts; got "${s}".`);
  return { platform: parts[0], endpoint: parts.slice(1).join('/') };
}

/**
 * `--param name=value` list → params. A name given twice with different values is a usage error
 * naming both (the API takes one value per parameter; keeping either silently would call
 * something else than asked); the same pair twice counts once.
 */
export function parseParams(list: string[] | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const p of list ?? []) {
    const i = p.indexOf('=');
    if (i <= 0) throw new UsageError(`--param takes name=value; got "${p}".`);
    const name = p.slice(0, i);
    const value = p.slice(i + 1);
    if (Object.hasOwn(out, name) && out[name] !== value)
      throw new UsageError(
        `--param ${name} is given twice ("${out[name]}" and "${value}"); a parameter takes one value — keep the one you mean (where the endpoint takes a list, it is one comma-separated value).`,
      );
    out[name] = value;
  }
  return out;
}
