/**
 * The web door never takes a path for a bundle (docs/datasets.md "In the app", docs/doors.md): a
 * page with the token cannot make the core write a bundle where it says, nor read one from where it
 * says. The bundle methods that name a path are the local doors' (src/shared/contract-local.ts);
 * over HTTP a bundle is one this app wrote (an export job) or one the page sent
 * (`datasets.upload`), both inside the data folder.
 */
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { post as postRecord } from '../core/archive/test-fixtures';
import { openArchive } from '../core/archive';
import { archivePath } from '../core/paths';
import { MemorySecretStore } from '../core/secrets';
import { startHost, type Host } from './index';

let host: Host;
let dir: string;
let outside: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'loupe-bundle-paths-'));
  outside = mkdtempSync(join(tmpdir(), 'loupe-bundle-outside-'));
  host = await startHost({ port: 0, dataDir: dir, secrets: new MemorySecretStore(), envKey: null, staticDir: join(dir, 'no-build') });
  const a = openArchive(archivePath(dir));
  try {
    a.ingestItems(
      ['7001', '7002', '7003'].map((id) => ({ platform: 'photo_net', kind: 'post', record: postRecord({ id }) })),
      { callId: 'seed', source: 'seed', fetchedAt: Date.now() },
    );
  } finally {
    a.close();
  }
});
afterAll(async () => {
  await host?.close();
  rmSync(dir, { recursive: true, force: true });
  rmSync(outside, { recursive: true, force: true });
});

type Answer<T = unknown> = { ok: true; result: T } | { ok: false; error: { kind: string; message: string } };
async function post<T = unknown>(method: string, input: unknown): Promise<{ status: number; body: Answer<T> }> {
  const r = await fetch(`${host.origin}/api/${method}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-loupe-token': host.token },
    body: JSON.stringify(input),
  });
  return { status: r.status, body: (await r.json()) as Answer<T> };
}

/** A finished bundle export job (a state waited for, not a time). */
let jobs = 0;
async function bundleJob(name = `paths-${++jobs}`): Promise<{ exportId: string; path: string }> {
  const j = await post<{ exportId: string }>('datasets.bundleJob', { target: { query: {} }, zip: true, name });
  if (!j.body.ok) throw new Error(j.body.error.message);
  for (;;) {
    const g = await post<{ status: string; path: string }>('export.get', { exportId: j.body.result.exportId });
    if (!g.body.ok) throw new Error(g.body.error.message);
    if (g.body.result.status === 'done') return { exportId: j.body.result.exportId, path: g.body.result.path };
    if (g.body.result.status !== 'running') throw new Error(`the bundle job ended ${g.body.result.status}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('bundles over the web door', () => {
  it('refuses every bundle method given a path: nothing written, nothing read', async () => {
    const { path: real } = await bundleJob(); // a real bundle: reading it by its path must be refused too
    const names = fc.stringMatching(/^[a-z0-9._-]{1,12}$/).filter((n) => n !== '.' && n !== '..');
    await fc.assert(
      fc.asyncProperty(names, fc.boolean(), async (name, zip) => {
        const out = join(outside, zip ? `${name}.zip` : name);
        const w = await post('datasets.exportBundle', { target: { query: {} }, out });
        expect(w.body.ok).toBe(false);
        expect(w.status).toBeGreaterThanOrEqual(400);
        expect(existsSync(out)).toBe(false);
        for (const m of ['datasets.verifyBundle', 'datasets.importBundle', 'datasets.rehydratePlan', 'datasets.rehydrate']) {
          for (const input of [{ dir: real }, { dir: out }, { bundle: { upload: real } }, { bundle: { dir: real } }]) {
            const r = await post(m, input);
            expect(r.body.ok, `${m} ${JSON.stringify(input)}`).toBe(false);
            expect(r.status).toBe(400);
          }
        }
        // an export id is looked up, never read as a path
        const e = await post('datasets.verifyBundle', { bundle: { export: real } });
        expect(e.body.ok).toBe(false);
        expect(e.status).toBe(404);
      }),
      { numRuns: 8 },
    );
    expect(readdirSync(outside)).toEqual([]);
  });

  it('verifies a bundle it wrote by its export id; a bundle sent in parts verifies and imports', async () => {
    const job = await bundleJob();
    const v = await post<{ ok: boolean; items: number }>('datasets.verifyBundle', { bundle: { export: job.exportId }, withArchive: true });
    expect(v.body).toMatchObject({ ok: true, result: { ok: true, items: 3 } });

    // the page downloads it and sends it back in parts (smaller than the limit, to make several)
    const bytes = Buffer.from(await (await fetch(`${host.origin}/api/exports/${job.exportId}?token=${host.token}`)).arrayBuffer());
    const part = Math.ceil(bytes.length / 3);
    let upload: string | undefined;
    for (let at = 0; at < bytes.length; at += part) {
      const r = await post<{ upload: string; bytes: number }>('datasets.upload', {
        ...(upload ? { upload } : {}),
        offset: at,
        data: bytes.subarray(at, at + part).toString('base64'),
      });
      if (!r.body.ok) throw new Error(r.body.error.message);
      upload = r.body.result.upload;
      expect(r.body.result.bytes).toBe(Math.min(bytes.length, at + part));
    }
    // a part out of order is refused, naming where to send from
    const skip = await post('datasets.upload', { upload, offset: 1, data: 'AA==' });
    expect(skip.body).toMatchObject({
      ok: false,
      error: { kind: 'validation', message: expect.stringContaining(`send from byte ${bytes.length}`) },
    });

    const sent = await post<{ ok: boolean }>('datasets.verifyBundle', { bundle: { upload } });
    expect(sent.body).toMatchObject({ ok: true, result: { ok: true } });
    const imp = await post<{ items: { before: number; after: number } }>('datasets.importBundle', { bundle: { upload } });
    expect(imp.body).toMatchObject({ ok: true, result: { items: { before: 3, after: 3 } } });
    expect(readdirSync(join(dir, 'uploads'))).toEqual([`${upload}.zip`]);
  });

  it('two bundle jobs given one name (or started in the same second) each write a file of their own', async () => {
    const [a, b] = await Promise.all([bundleJob('same-name'), bundleJob('same-name')]);
    expect(a.path).not.toBe(b.path);
    expect(existsSync(a.path) && existsSync(b.path)).toBe(true);
    const c = await bundleJob('same-name'); // after both: a third name, the earlier files kept
    expect(new Set([a.path, b.path, c.path]).size).toBe(3);
  });
});
