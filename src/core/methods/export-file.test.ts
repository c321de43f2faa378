import { spawnSync } from 'node:child_process';
import { existsSync, lstatSync, mkdtempSync, readFileSync, readlinkSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { METHOD_NAMES } from '../../shared/contract';
import { localMethods, parseLocalInput } from '../../shared/contract-local';
import { createApp, type LoupeApp } from '../app';
import { post } from '../archive/test-fixtures';
import { dispatch } from '../bridge';
import { MemorySecretStore } from '../secrets';

let dir: string;
let app: LoupeApp;
const IDS = ['1900000000000000001', '1900000000000000002', '1900000000000000003'];

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'loupe-local-'));
  app = createApp({ dataDir: dir, secrets: new MemorySecretStore(), door: 'cli' });
  app.archive.ingestItems(IDS.map((id) => ({ platform: 'photo_net', kind: 'post', record: post({ id, text: `post ${id}` }) })));
  const now = Date.now();
  app.archive.watchlists.insertList({
    id: 'wl-1',
    name: 'Coffee shops',
    schedule: null,
    budgetPerRun: null,
    budgetPerMonth: null,
    paused: false,
    alert: null,
    firstRunPages: 1,
    seenAt: now,
    createdAt: now,
    updatedAt: now,
  });
});
afterAll(async () => {
  await app.close();
  rmSync(dir, { recursive: true, force: true });
});

const exportTo = (file: string, more: Record<string, unknown> = {}) =>
  app.local['local.exportFile'](parseLocalInput('local.exportFile', { format: 'jsonl', file, ...more }));

describe('local.exportFile: an export to a path, for local doors only', () => {
  it('is no contract method: the web host and the renderer (dispatch) cannot name a path to write', async () => {
    for (const m of Object.keys(localMethods)) {
      expect(METHOD_NAMES).not.toContain(m);
      const file = join(dir, 'from-the-web.jsonl');
      const r = await dispatch(app, m, { format: 'jsonl', file });
      expect(r.ok).toBe(false);
      if (!r.ok) expect(r.error.kind).toBe('not_found');
      expect(existsSync(file)).toBe(false);
    }
  });

  it('writes the query to the file, each row once, and says what it wrote', async () => {
    const file = join(dir, 'all.jsonl');
    const seen: number[] = [];
    const r = await app.local['local.exportFile'](parseLocalInput('local.exportFile', { format: 'jsonl', file, history: false }), {
      onEvent: (e) => seen.push(e.type === 'export-rows' ? e.total : -1),
    });
    const ids = readFileSync(file, 'utf8')
      .trim()
      .split('\n')
      .map((l) => (JSON.parse(l) as { id: string }).id);
    expect(ids.sort()).toEqual(IDS);
    expect(r).toMatchObject({ path: file, rows: 3 });
    expect(r.summary).toMatch(/3/);
    expect(seen.every((t) => t === 3)).toBe(true);
  });

  it('a symbolic link is written through (the link stays); a pipe, a folder or a relative path is refused, nothing written', async () => {
    const target = join(dir, 'target.jsonl');
    writeFileSync(target, 'old');
    const link = join(dir, 'link.jsonl');
    symlinkSync(target, link);
    await exportTo(link);
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    expect(readlinkSync(link)).toBe(target);
    expect(readFileSync(target, 'utf8')).toMatch(/1900000000000000001/);

    await expect(exportTo(dir)).rejects.toMatchObject({ kind: 'validation' });
    await expect(exportTo('relative.jsonl')).rejects.toMatchObject({ kind: 'validation' });
    if (process.platform !== 'win32') {
      const fifo = join(dir, 'fifo');
      expect(spawnSync('mkfifo', [fifo]).status).toBe(0);
      await expect(exportTo(fifo)).rejects.toMatchObject({ kind: 'validation' });
      expect(lstatSync(fifo).isFIFO()).toBe(true);
    }
  });

  it('a wrong combination of options is refused before anything is written', async () => {
    const file = join(dir, 'bad.gexf');
    await expect(exportTo(file, { format: 'gexf' })).rejects.toMatchObject({ kind: 'validation', message: /choose one with --network/ });
    expect(existsSync(file)).toBe(false);
  });
});

describe('library.watchlistId: a watchlist named by a person', () => {
  it('finds it by name or id, and answers null for a name no watchlist has', async () => {
    for (const name of ['Coffee shops', 'wl-1']) {
      const r = await dispatch(app, 'library.watchlistId', { name });
      expect(r).toEqual({ ok: true, result: 'wl-1' });
    }
    expect(await dispatch(app, 'library.watchlistId', { name: 'Tea rooms' })).toEqual({ ok: true, result: null });
  });
});
