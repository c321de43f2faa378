/**
 * Test harness (not shipped): the composed app over a temporary data folder, talking to an
 * in-process sandbox, driven through the same `dispatch` the doors use.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSandbox, type SandboxHandle, type SandboxOptions } from '../sandbox';
import type { WalkInfo } from '../shared/contract';
import { createApp, type CreateAppOptions, type LoupeApp } from './app';
import { dispatch } from './bridge';
import { MemorySecretStore } from './secrets';

/** One contract call through the doors' dispatch; a failure throws with its kind and sentence. */
export async function callApp<T>(app: LoupeApp, method: string, input: unknown = {}): Promise<T> {
  const r = await dispatch(app, method, input);
  if (!r.ok) throw new Error(`${method}: ${r.error.kind}: ${r.error.message}`);
  return r.result as T;
}

export interface TestApp {
  sb: SandboxHandle;
  app: LoupeApp;
  dir: string;
  call<T>(method: string, input?: unknown): Promise<T>;
  /** the walk once it is no longer running */
  settled(walkId: string): Promise<WalkInfo>;
  close(): Promise<void>;
}

/** `extra`: more of the app's options (e.g. `watch: appWatchFactory({ scheduler: false })`). */
export async function startTestApp(
  sandbox: SandboxOptions,
  prefix = 'loupe-app-',
  extra: Partial<Omit<CreateAppOptions, 'dataDir' | 'sandbox'>> = {},
): Promise<TestApp> {
  const sb = await startSandbox({ port: 0, ...sandbox });
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const app = createApp({
    dataDir: dir,
    secrets: new MemorySecretStore(),
    door: 'web',
    sandbox: async () => ({ url: sb.url, key: sb.key }),
    ...extra,
  });
  const call = <T>(method: string, input: unknown = {}) => callApp<T>(app, method, input);
  return {
    sb,
    app,
    dir,
    call,
    async settled(walkId) {
      for (let i = 0; i < 400; i++) {
        const w = await call<WalkInfo | null>('walks.get', { walkId });
        if (w && w.status !== 'running') return w;
        await new Promise((r) => setTimeout(r, 25));
      }
      throw new Error('walk did not settle');
    },
    async close() {
      await app.close();
      await sb.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
