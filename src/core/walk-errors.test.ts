/**
 * Issue 14 #7: a walk that stops on a failure carries the failure's kind and the API's type (and,
 * for a long wait, when it ends), so the UI names the cause and offers the way out (top-up,
 * Usage, Settings, resume) instead of "No results — try broader words".
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

beforeAll(async () => {
  sb = await startSandbox({ port: 0, seed: 7, balance: 30, freeCalls: 0 });
  dir = mkdtempSync(join(tmpdir(), 'loupe-walkerr-'));
  app = createApp({ dataDir: dir, secrets: new MemorySecretStore(), door: 'web', sandbox: async () => ({ url: sb.url, key: sb.key }) });
});
afterAll(async () => {
  await app?.close();
  await sb?.close();
  rmSync(dir, { recursive: true, force: true });
});

async function settled(walkId: string): Promise<WalkInfo> {
  for (let i = 0; i < 200; i++) {
    const w = await call<WalkInfo | null>('walks.get', { walkId });
    if (w && w.status !== 'running') return w;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error('walk did not settle');
}

describe('walk failures carry their kind and type', () => {
  it('out of credits: kind and type reach the WalkInfo; nothing charged', async () => {
    await call('credits.refresh');
    const w0 = await call<WalkInfo>('walks.start', { target: { platform: 'photo_net', endpoint: 'profile/posts', params: { handle: 'nasa' } }, source: 'search', maxPages: 1 });
    const w = await settled(w0.walkId);
    expect(w.error).toBeTruthy();
    expect(w.errorType).toBe('INSUFFICIENT_CREDITS');
    expect(['insufficient_local', 'api']).toContain(w.errorKind);
    expect(w.pagesDone).toBe(0);
    expect(sb.admin.charges().reduce((n, c) => n + c.credits_used, 0)).toBe(0);
  });
});
