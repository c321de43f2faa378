/** Test helpers for the conformance suite: a fixture sandbox and a tiny fetch client. */
import { startServer, type SandboxHandle, type SandboxOptions } from '../server/start';
import { FIXTURE_EPOCH, fixtureDeps } from './fixtures';

export type Body = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

export async function fixtureSandbox(opts: SandboxOptions = {}): Promise<SandboxHandle> {
  const epoch = opts.epoch ?? FIXTURE_EPOCH;
  return startServer(fixtureDeps(epoch), { timeScale: 1, freeCalls: 0, ...opts, epoch });
}

export interface Res {
  status: number;
  headers: Headers;
  body: Body;
}

export async function get(
  sb: SandboxHandle,
  path: string,
  opts: { key?: string | null; headers?: Record<string, string>; method?: string } = {},
): Promise<Res> {
  const headers: Record<string, string> = { ...(opts.headers ?? {}) };
  const key = opts.key === undefined ? sb.key : opts.key;
  if (key !== null) headers['x-api-key'] = key;
  const r = await fetch(`${sb.url}${path}`, { method: opts.method ?? 'GET', headers });
  const text = await r.text();
  return { status: r.status, headers: r.headers, body: text ? (JSON.parse(text) as Body) : {} };
}

/** Walk a list endpoint by next_cursor until has_more is false (or `max` calls). */
export async function walk(sb: SandboxHandle, path: string, max = 50, param = 'cursor'): Promise<Res[]> {
  const out: Res[] = [];
  let cursor: string | null = null;
  for (let i = 0; i < max; i++) {
    const sep = path.includes('?') ? '&' : '?';
    const r = await get(sb, cursor ? `${path}${sep}${param}=${encodeURIComponent(cursor)}` : path);
    out.push(r);
    if (r.status !== 200 || !r.body.pagination?.has_more) break;
    cursor = r.body.pagination.next_cursor as string;
  }
  return out;
}

export function ids(r: Res): string[] {
  return (r.body.data.items as Array<Record<string, { id: string }>>).map((it) => Object.values(it)[0].id);
}
