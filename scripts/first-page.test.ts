/**
 * Issue 30 "Opening": src/renderer/first-page.js (shipped by scripts/first-view-preload.mjs) asks for the Library's first page before the app's
 * code has run; the app's door takes that answer for its first library.query when the bodies are the
 * same (the Library's default query, as useLibraryRows asks for it), and asks the host itself when not.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { runInNewContext } from 'node:vm';
import { QueryClient } from '@tanstack/react-query';
import { afterEach, describe, expect, it, vi } from 'vitest';

const SCRIPT = readFileSync(join(import.meta.dirname, '..', 'src', 'renderer', 'first-page.js'), 'utf8');

function page(hash: string) {
  const calls: Array<{ url: string; body: string; token: string }> = [];
  const fetch = vi.fn(async (url: string, init: { body: string; headers: Record<string, string> }) => {
    calls.push({ url, body: init.body, token: init.headers['x-loupe-token'] });
    const n = calls.length;
    return { status: 200, json: async () => ({ ok: true, result: { rows: [], next: null, total: n } }) };
  });
  const store = new Map<string, string>();
  const sessionStorage = { getItem: (k: string) => store.get(k) ?? null, setItem: (k: string, v: string) => void store.set(k, v) };
  const href = `http://127.0.0.1:9/?token=tok${hash}`;
  const window = {
    location: { href, search: '?token=tok', hash, pathname: '/' },
    history: { replaceState: () => {} },
    sessionStorage,
    URLSearchParams,
  };
  vi.stubGlobal('window', window);
  vi.stubGlobal('sessionStorage', sessionStorage);
  vi.stubGlobal('fetch', fetch);
  runInNewContext(SCRIPT, { window, fetch });
  return { calls };
}

/** The Library's first page as the app asks for it (a fresh copy of the app's modules on this page). */
async function firstPage(q?: object) {
  vi.resetModules();
  const { libraryRowsOptions } = await import('../src/renderer/src/queries/hooks');
  const { useLibrary } = await import('../src/renderer/src/stores/library');
  const qc = new QueryClient();
  const data = await qc.fetchInfiniteQuery(libraryRowsOptions(q ?? useLibrary.getState().q));
  return data.pages[0];
}

describe('the first page asked for before the app runs', () => {
  afterEach(() => vi.unstubAllGlobals());

  it('is the answer of the app’s first library.query: one request, with the session token', async () => {
    const { calls } = page('#library');
    expect(calls).toHaveLength(1); // asked for before the app's code
    const first = await firstPage();
    expect(calls).toHaveLength(1);
    expect(calls[0]).toMatchObject({ url: '/api/library.query', token: 'tok' });
    expect(first.total).toBe(1);
  });

  it('is not used for another query: the app asks for its own', async () => {
    const { calls } = page('#library');
    const first = await firstPage({ text: 'bread', sort: { field: 'published_at', dir: 'desc' } });
    expect(calls).toHaveLength(2);
    expect(JSON.parse(calls[1].body)).toMatchObject({ text: 'bread', lean: true });
    expect(first.total).toBe(2);
  });

  it('is not asked for on another view', async () => {
    const { calls } = page('#search');
    expect(calls).toHaveLength(0);
    await firstPage();
    expect(calls).toHaveLength(1);
  });
});
