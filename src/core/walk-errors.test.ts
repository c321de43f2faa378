/**
 * Issue 14 #7: a walk that stops on a failure carries the failure's kind and the API's type (and,
 * for a long wait, when it ends), so the UI names the cause and offers the way out (top-up,
 * Usage, Settings, resume) instead of "No results — try broader words".
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WalkInfo } from '../shared/contract';
import { startTestApp, type TestApp } from './test-app';

let t: TestApp;
const call = <T>(m: string, input?: unknown) => t.call<T>(m, input);
const settled = (walkId: string) => t.settled(walkId);
beforeAll(async () => {
  t = await startTestApp({ seed: 7, balance: 30, freeCalls: 0 }, 'loupe-walkerr-');
});
afterAll(async () => {
  await t?.close();
});

describe('walk failures carry their kind and type', () => {
  it('out of credits: kind and type reach the WalkInfo; nothing charged', async () => {
    await call('credits.refresh');
    const w0 = await call<WalkInfo>('walks.start', {
      target: { platform: 'photo_net', endpoint: 'profile/posts', params: { handle: 'nasa' } },
      source: 'search',
      maxPages: 1,
    });
    const w = await settled(w0.walkId);
    expect(w.error).toBeTruthy();
    expect(w.errorType).toBe('INSUFFICIENT_CREDITS');
    expect(['insufficient_local', 'api']).toContain(w.errorKind);
    expect(w.pagesDone).toBe(0);
    expect(t.sb.admin.charges().reduce((n, c) => n + c.credits_used, 0)).toBe(0);
  });
});
