/**
 * The keys the core sees (docs/request-core.md "Key pool"): the door's list read on every attempt,
 * each key remembered only to redact it from any text, with one warning per key that does not look
 * like a service key; and the key the free meta calls use.
 */
import { KEY_PATTERN } from '../../../shared/api-types';
import { redact, sha256 } from '../canonical';
import { ApiError } from '../errors';
import type { Emitter } from '../events';
import type { KeyPool, PoolKey } from '../key-pool';
import type { ApiEvents } from '../types';

/** Every key value seen, to scrub from log lines and the service's words (never stored). */
export class Secrets {
  private readonly seen = new Set<string>();
  add(key: string): boolean {
    if (this.seen.has(key)) return false;
    this.seen.add(key);
    return true;
  }
  scrub(text: string): string {
    let out = text;
    for (const s of this.seen) out = redact(out, s);
    return out;
  }
}

export interface KeySourceOptions {
  getKey?: () => string | null | Promise<string | null>;
  getKeys?: () => PoolKey[] | Promise<PoolKey[]>;
}

/** The pool's `getKeys`: the door's keys, each new one checked once against the key format. */
export function keySource(
  o: KeySourceOptions,
  secrets: Secrets,
  log: (line: string) => void,
  events: Emitter<ApiEvents>,
): () => Promise<PoolKey[]> {
  const warned = new Set<string>();
  return async () => {
    let keys: PoolKey[];
    if (o.getKeys) keys = await o.getKeys();
    else {
      const k = o.getKey ? await o.getKey() : null;
      keys = k ? [{ name: null, key: k }] : [];
    }
    for (const pk of keys) {
      if (!pk.key || !secrets.add(pk.key)) continue;
      const fp = sha256(pk.key).slice(0, 16);
      if (!KEY_PATTERN.test(pk.key) && !warned.has(fp)) {
        warned.add(fp);
        const message = `The API key${pk.name ? ` "${pk.name}"` : ''} does not look like a service key (<prefix>_live_ or <prefix>_test_ followed by 43 characters); the service may refuse it.`;
        log(`warning: ${message}`);
        events.emit('warning', { code: 'key_format', message });
      }
    }
    return keys;
  };
}

/** A key for the free meta calls that need one (GET /v1/credits). */
export async function metaKey(pool: KeyPool): Promise<string> {
  const ms = await pool.members();
  const m = ms.find((x) => !x.retiring) ?? ms[0];
  if (!m)
    throw new ApiError({
      kind: 'validation',
      type: 'MISSING_API_KEY',
      message: 'No API key is set: add a key in Settings or set it for the command line (MISSING_API_KEY).',
    });
  return m.key;
}
