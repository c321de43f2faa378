/**
 * The IPC door of the error model (src/shared/errors.ts): every call answers a DoorAnswer — a
 * user mistake is its kind with its sentence and logs nothing, a bug is `internal` and logs its
 * stack on the main process's stderr (redacted), and nothing is thrown across IPC.
 */
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import type { AppHandle } from '../core/bridge';
import { openArchive } from '../core/archive';
import type { LoupeImpl } from '../shared/contract';
import { fake } from './testing/fake-electron';

vi.mock('electron', async () => (await import('./testing/fake-electron')).fakeElectron());

const SECRET = 'sdr_live_' + 'k'.repeat(43);
const archive = openArchive(':memory:');
const impl = {
  'library.query': async (q: Parameters<typeof archive.query>[0]) => archive.query(q),
  'walks.get': async () => {
    throw new TypeError(`cannot read properties of undefined (key ${SECRET})`);
  },
} as unknown as LoupeImpl;
const app: AppHandle = { impl, events: { on: () => () => {} }, secrets: () => [SECRET], close: async () => {} };

const { bindContract } = await import('./ipc');
const unbind = bindContract(app, () => true);
const call = (method: string, input: unknown) => fake.ipcMain.invoke('loupe:call', 'loupe://app/index.html', method, input);

afterEach(() => vi.restoreAllMocks());
afterAll(() => {
  unbind();
  archive.close();
});

describe('errors over IPC', () => {
  it('a bad library cursor answers { ok: false, validation } and logs nothing', async () => {
    const log = vi.spyOn(console, 'error').mockImplementation(() => {});
    await expect(call('library.query', { after: 'garbage!' })).resolves.toEqual({
      ok: false,
      error: { kind: 'validation', message: 'invalid cursor' },
    });
    expect(log).not.toHaveBeenCalled();
  });

  it('an unexpected error answers internal (one line, no key) and logs its stack without the key', async () => {
    const log = vi.spyOn(console, 'error').mockImplementation(() => {});
    const r = (await call('walks.get', { walkId: 'w1' })) as { ok: boolean; error: { kind: string; message: string } };
    expect(r.ok).toBe(false);
    expect(r.error.kind).toBe('internal');
    expect(r.error.message).not.toContain(SECRET);
    expect(r.error).not.toHaveProperty('stack');
    expect(log).toHaveBeenCalledTimes(1);
    expect(String(log.mock.calls[0][0])).toMatch(/TypeError: cannot read properties[\s\S]*\n\s+at /);
    expect(String(log.mock.calls[0][0])).not.toContain(SECRET);
  });

  it('a failing desktop wrapper is answered, not thrown', async () => {
    const log = vi.spyOn(console, 'error').mockImplementation(() => {});
    fake.ipcMain.removeHandler('loupe:call');
    const again = bindContract(
      app,
      () => true,
      async () => {
        throw new Error('dialog exploded');
      },
    );
    try {
      await expect(call('library.query', {})).resolves.toEqual({ ok: false, error: { kind: 'internal', message: 'dialog exploded' } });
      expect(log).toHaveBeenCalledTimes(1);
    } finally {
      again();
      bindContract(app, () => true);
    }
  });
});
