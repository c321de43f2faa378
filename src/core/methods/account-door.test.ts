import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createApp } from '../app';
import { dispatch } from '../bridge';
import { MemorySecretStore } from '../secrets';

describe('keys.add at each door', () => {
  it('"used from the next start" is the desktop and web rule, never the command line\'s (it uses a key whenever a base URL is given)', async () => {
    for (const door of ['web', 'cli'] as const) {
      const dir = mkdtempSync(join(tmpdir(), `loupe-keys-${door}-`));
      const app = createApp({ dataDir: dir, secrets: new MemorySecretStore(), door });
      try {
        const r = await dispatch(app, 'keys.add', { name: 'work', key: 'sk_test_0123456789abcdef0123456789abcdef' });
        expect(r).toMatchObject({ ok: true, result: { backend: 'memory' } });
        const warning = JSON.stringify(r);
        if (door === 'cli') expect(warning).not.toMatch(/next start/);
        else expect(warning).toMatch(/next start/);
      } finally {
        await app.close();
        rmSync(dir, { recursive: true, force: true });
      }
    }
  });
});
