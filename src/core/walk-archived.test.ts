/**
 * A repeated walk answered from the archive (the same search inside its cache window: no request)
 * lists the rows its bar counts — "20 items (0 new)" over an empty table was a view the archive
 * contradicts (issue 14: no view shows a number the archive contradicts).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type SandboxHandle } from '../sandbox';
import type { WalkInfo } from '../shared/contract';
import { createApp, type LoupeApp } from './app';
import { dispatch } from './bridge';
import { MemorySecretStore } from './secrets';

let sb: SandboxHandle;
let dir: string;
let app: LoupeApp;
const call = async <T>(m: string, input: unknown = {}): Promise<T> => {
  const r = await dispatch(app, m, input);
  if (!r.ok) throw new Error(`${m}: ${r.error.message}`);
  return r.result as T;
};
async function settled(walkId: string): Promise<WalkInfo> {
  for (let i = 0; i < 400; i++) {
    const w = await call<WalkInfo | null>('walks.get', { walkId });
    if (w && w.status !== 'running') return w;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error('walk did not settle');
}

beforeAll(async () => {
  sb = await startSandbox({ port: 0, seed: 3, balance: 1_000_000, freeCalls: 0 });
  dir = mkdtempSync(join(tmpdir(), 'loupe-walkarch-'));
  app = createApp({ dataDir: dir, secrets: new MemorySecretStore(), door: 'web', sandbox: async () => ({ url: sb.url, key: sb.key }) });
});
afterAll(async () => {
  await app?.close();
  await sb?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('a walk answered from the archive', () => {
  it('lists the rows it counts, and no request or ledger row is added', async () => {
    const target = { platform: 'photo_net', endpoint: 'search/reels', params: { query: 'kettle' } };
    const a = await settled((await call<WalkInfo>('walks.start', { target, source: 'search', maxPages: 1 })).walkId);
    const requests = sb.admin.charges().length;
    const ledger = (await call<unknown[]>('usage.ledger', { limit: 1000 })).length;
    const b = await settled((await call<WalkInfo>('walks.start', { target, source: 'search', maxPages: 1 })).walkId);
    expect(sb.admin.charges().length).toBe(requests);
    expect((await call<unknown[]>('usage.ledger', { limit: 1000 })).length).toBe(ledger);
    expect(b.itemsSeen).toBe(a.itemsSeen);
    expect(b.newItems).toBe(0);
    const rows = await call<{ rows: unknown[] }>('library.query', { source: { type: 'walk', id: b.walkId }, limit: 500 });
    expect(rows.rows.length).toBe(b.itemsSeen);
    expect(await call<number>('library.count', {})).toBe(a.newItems); // nothing duplicated
  });
});
