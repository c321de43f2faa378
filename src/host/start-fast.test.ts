/**
 * Issue 30 "Opening": the web host serves without waiting for the OS keyring's probe (~0.5 s on a
 * Linux machine without a keychain, more when loaded); the probe runs in the background and its
 * answer is the same as before (account.info says where keys go). Here the probe never answers:
 * the host still starts and serves its page.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { KeyringSecretStore } from '../core/secrets';
import { startHost } from './index';

const dir = mkdtempSync(join(tmpdir(), 'loupe-host-fast-'));
afterEach(() => {
  vi.restoreAllMocks();
  rmSync(dir, { recursive: true, force: true });
});

describe('the web host starting', () => {
  it('serves before the keyring probe has answered', async () => {
    const probe = vi.spyOn(KeyringSecretStore.prototype, 'available').mockReturnValue(new Promise(() => undefined));
    const host = await startHost({ port: 0, dataDir: dir, envKey: null, staticDir: join(dir, 'no-build'), sandbox: { seed: 3 } });
    try {
      expect(probe).toHaveBeenCalled();
      // the page (here: the "not built" page of a host without a renderer build)
      const r = await fetch(host.url);
      expect(r.status).toBe(503);
      expect(await r.text()).toContain('<title>Loupe</title>');
    } finally {
      await host.close();
    }
  }, 30_000);
});
