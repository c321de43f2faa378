import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  ENV_KEY_NAME,
  KeyRing,
  KeyringSecretStore,
  MAX_KEYS,
  MemorySecretStore,
  SecretError,
  SettingsFile,
  UnavailableSecretStore,
} from './index';

const realKey = () => `sdr_live_${randomBytes(32).toString('base64url')}`;

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'loupe-secrets-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function ring(opts: { envKey?: string; store?: MemorySecretStore } = {}) {
  const settings = new SettingsFile(join(dir, 'settings.json'));
  const store = opts.store ?? new MemorySecretStore();
  return { kr: new KeyRing({ store, settings, envKey: opts.envKey ?? null, now: () => 1_700_000_000_000 }), store, settings };
}

describe('KeyRing with the in-memory store', () => {
  it('stores the value in the secret store and only metadata in settings.json', async () => {
    const { kr, store } = ring();
    const key = realKey();
    const res = await kr.add('work', key);
    expect(JSON.stringify(res)).not.toContain(key);
    expect(res).toEqual({ name: 'work', warning: null });
    expect(await store.get('work')).toBe(key);
    const file = readFileSync(join(dir, 'settings.json'), 'utf8');
    expect(file).not.toContain(key);
    expect(file).not.toContain(key.slice(9, 30));
    expect(JSON.parse(file).keys).toEqual([{ name: 'work', addedAt: 1_700_000_000_000, looksValid: true, mode: 'live' }]);
    const list = kr.list();
    expect(JSON.stringify(list)).not.toContain(key);
    expect(list).toEqual([
      { name: 'work', active: true, addedAt: 1_700_000_000_000, looksValid: true, mode: 'live', retiring: false, refused: null },
    ]);
    expect(await kr.activeKey()).toBe(key);
  });

  it('warns (and still saves) when a value does not look like a service key', async () => {
    const { kr } = ring();
    const res = await kr.add('odd', 'not-a-key');
    expect(res.warning).toMatch(/does not look like a service key/);
    expect(res.warning).not.toContain('not-a-key');
    expect(kr.list()[0]).toMatchObject({ name: 'odd', looksValid: false, mode: 'unknown' });
  });

  it('pools every stored key; retiring keys are flagged, `use` puts one back, removing hands the name over', async () => {
    const { kr, store } = ring();
    let t = 1;
    (kr as unknown as { now: () => number }).now = () => t++;
    const [a, b, c] = [realKey(), realKey(), realKey()];
    await kr.add('a', a);
    await kr.add('b', b, false); // stored retiring: out of use until `use`
    await kr.add('c', c);
    expect(kr.activeName()).toBe('c');
    expect(
      kr
        .list()
        .filter((k) => k.active)
        .map((k) => k.name),
    ).toEqual(['a', 'c']);
    expect(await kr.poolKeys()).toEqual([
      { name: 'a', key: a },
      { name: 'b', key: b, retiring: true },
      { name: 'c', key: c },
    ]);
    expect(
      kr
        .use('b')
        .filter((k) => k.active)
        .map((k) => k.name),
    ).toEqual(['a', 'b', 'c']);
    expect(await kr.activeKey()).toBe(b);
    kr.retire('a');
    expect(kr.list().find((k) => k.name === 'a')).toMatchObject({ active: false, retiring: true });
    const after = await kr.remove('b');
    expect(after.map((k) => k.name)).toEqual(['a', 'c']);
    expect(kr.activeName()).toBe('c');
    expect(await store.get('b')).toBeNull();
    expect(() => kr.use('b')).toThrow(SecretError);
  });

  it('keeps a key the service refused out of the pool until it is replaced', async () => {
    const { kr } = ring();
    const [a, b] = [realKey(), realKey()];
    await kr.add('a', a);
    await kr.add('b', b);
    kr.markRefused('a', 'API_KEY_REVOKED');
    expect((await kr.poolKeys()).map((k) => k.name)).toEqual(['b']);
    expect(kr.list().find((k) => k.name === 'a')).toMatchObject({ active: false, refused: 'API_KEY_REVOKED' });
    const fresh = realKey();
    await kr.add('a', fresh);
    expect((await kr.poolKeys()).map((k) => k.key)).toEqual([b, fresh]);
  });

  it(`refuses a ${MAX_KEYS + 1}th key but allows replacing an existing name`, async () => {
    const { kr } = ring();
    for (let i = 0; i < MAX_KEYS; i++) await kr.add(`k${i}`, realKey());
    await expect(kr.add('one-more', realKey())).rejects.toThrow(/At most 25 keys/);
    const r = await kr.add('k3', realKey());
    expect(r.warning).toMatch(/replaced/);
    expect(kr.list()).toHaveLength(MAX_KEYS);
  });

  it('rejects empty names, pasted whitespace and the reserved env name without echoing the value', async () => {
    const { kr } = ring();
    const key = realKey();
    await expect(kr.add('  ', key)).rejects.toThrow(/needs a name/);
    const err = await kr.add('x', `${key} ${key}`).catch((e: Error) => e);
    expect(err).toBeInstanceOf(SecretError);
    expect((err as Error).message).not.toContain(key);
    await expect(kr.add(ENV_KEY_NAME, key)).rejects.toThrow(/reserved/);
  });

  it('keeps a key added by one process visible to another sharing the data folder (metadata re-read from disk)', async () => {
    const store = new MemorySecretStore();
    const one = ring({ store }).kr;
    const two = ring({ store }).kr;
    const key = realKey();
    await one.add('shared', key);
    expect(two.list().map((k) => k.name)).toEqual(['shared']);
    expect(await two.activeKey()).toBe(key);
  });
});

describe('LOUPE_API_KEY', () => {
  it('wins over stored keys and is never persisted', async () => {
    const envKey = realKey();
    const { kr, store } = ring({ envKey });
    const stored = realKey();
    const r = await kr.add('stored', stored);
    expect(r.warning).toMatch(/LOUPE_API_KEY is set/);
    expect(await kr.activeKey()).toBe(envKey);
    expect(kr.backend()).toBe('env');
    const list = kr.list();
    expect(list[0]).toEqual({
      name: ENV_KEY_NAME,
      active: true,
      addedAt: 0,
      looksValid: true,
      mode: 'live',
      retiring: false,
      refused: null,
    });
    expect(list[1]).toMatchObject({ name: 'stored', active: false });
    const file = readFileSync(join(dir, 'settings.json'), 'utf8');
    expect(file).not.toContain(envKey);
    expect(file).not.toContain(ENV_KEY_NAME);
    expect(await store.get(ENV_KEY_NAME)).toBeNull();
    await expect(kr.remove(ENV_KEY_NAME)).rejects.toThrow(/unset LOUPE_API_KEY/);
  });

  it('holds several keys separated by commas: each in the pool by position, none persisted or listed by value', async () => {
    const [k1, k2, k3] = [realKey(), realKey(), realKey()];
    const { kr, store } = ring({ envKey: ` ${k1}, ${k2},,${k3} ` });
    await kr.add('stored', realKey());
    expect(await kr.poolKeys()).toEqual([
      { name: 'LOUPE_API_KEY #1', key: k1 },
      { name: 'LOUPE_API_KEY #2', key: k2 },
      { name: 'LOUPE_API_KEY #3', key: k3 },
    ]);
    const list = kr.list();
    expect(list.filter((k) => k.active).map((k) => k.name)).toEqual(['LOUPE_API_KEY #1', 'LOUPE_API_KEY #2', 'LOUPE_API_KEY #3']);
    for (const k of [k1, k2, k3]) {
      expect(JSON.stringify(list)).not.toContain(k);
      expect(readFileSync(join(dir, 'settings.json'), 'utf8')).not.toContain(k);
    }
    expect(kr.secrets()).toEqual(expect.arrayContaining([k1, k2, k3]));
    expect(await store.get('LOUPE_API_KEY #1')).toBeNull();
    expect(kr.poolSize()).toBe(3);
  });

  it('an empty LOUPE_API_KEY counts as unset', async () => {
    const { kr } = ring({ envKey: '' });
    expect(kr.fromEnv).toBe(false);
    expect(kr.hasKey()).toBe(false);
  });
});

describe('settings.json', () => {
  it('survives a corrupt file: defaults are used and the bad file is moved aside on the next write', async () => {
    writeFileSync(join(dir, 'settings.json'), '{ not json');
    const { kr } = ring();
    expect(kr.list()).toEqual([]);
    await kr.add('k', realKey());
    expect(kr.list().map((k) => k.name)).toEqual(['k']);
    const moved = readFileSync(join(dir, 'settings.json'), 'utf8');
    expect(JSON.parse(moved).keys).toHaveLength(1);
    expect(readdirSync(dir).some((f) => f.startsWith('settings.json.corrupt-'))).toBe(true);
  });
});

describe('no secure storage', () => {
  it('refuses to save with a clear sentence and writes nothing in plaintext', async () => {
    const settings = new SettingsFile(join(dir, 'settings.json'));
    const kr = new KeyRing({ store: new UnavailableSecretStore('The OS keychain is not available (test).'), settings });
    const key = realKey();
    const err = await kr.add('k', key).catch((e: SecretError) => e);
    expect(err).toBeInstanceOf(SecretError);
    expect((err as SecretError).kind).toBe('secrets_unavailable');
    expect((err as SecretError).message).toMatch(/keychain is not available/);
    expect(existsSync(join(dir, 'settings.json'))).toBe(false);
    expect(kr.list()).toEqual([]);
  });
});

// The OS keyring for real: `npm test` runs Vitest inside dbus-run-session with an unlocked
// gnome-keyring and sets LOUPE_KEYRING_TEST=1. Without it there is no Secret Service on the bus
// and the same store must report itself unavailable with a clear message (no plaintext fallback).
const realKeyring = process.env.LOUPE_KEYRING_TEST === '1';

describe('the keychain library without a keychain', () => {
  it('captures no Rust backtrace for a failed call, even with RUST_BACKTRACE=1 (~250 ms of CPU each)', () => {
    // keyring.ts turned the library's backtraces off when it was loaded (a value set before is kept)
    expect(process.env.RUST_LIB_BACKTRACE).toBeDefined();
    // The failing call runs in a child with a bus that does not exist: the library keeps state per
    // process, and a failed connection here made this file's real-keychain tests fail (AccessDenied).
    const child = spawnSync(
      process.execPath,
      [
        '-e',
        `try { new (require('@napi-rs/keyring').Entry)('Loupe-test', '__loupe_probe__').setPassword('x'); console.log(JSON.stringify(null)) } catch (e) { console.log(JSON.stringify(String(e && e.message))) }`,
      ],
      { env: { ...process.env, RUST_BACKTRACE: '1', DBUS_SESSION_BUS_ADDRESS: 'unix:path=/nonexistent/loupe-test-bus' }, encoding: 'utf8' },
    );
    const message = JSON.parse(child.stdout) as string | null;
    expect(message).toEqual(expect.any(String));
    if (process.env.RUST_LIB_BACKTRACE === '0') expect(message).not.toMatch(/Stack backtrace/);
  });
});

describe(realKeyring ? 'OS keyring (Secret Service running)' : 'OS keyring (no Secret Service on this bus)', () => {
  if (realKeyring) {
    it('round-trips a key through the Secret Service and deletes it', async () => {
      const store = new KeyringSecretStore({ service: 'Loupe-test' });
      expect(await store.available()).toEqual({ ok: true, message: null });
      const name = `t-${randomBytes(4).toString('hex')}`;
      const key = realKey();
      await store.set(name, key);
      expect(await new KeyringSecretStore({ service: 'Loupe-test' }).get(name)).toBe(key);
      await store.delete(name);
      expect(await store.get(name)).toBeNull();
      await store.delete(name); // deleting twice is fine
    });

    it('KeyRing on the real keyring keeps the value out of settings.json', async () => {
      const settings = new SettingsFile(join(dir, 'settings.json'));
      const kr = new KeyRing({ store: new KeyringSecretStore({ service: 'Loupe-test' }), settings });
      const key = realKey();
      const name = `kr-${randomBytes(4).toString('hex')}`;
      await kr.add(name, key);
      expect(readFileSync(settings.path, 'utf8')).not.toContain(key);
      const fresh = new KeyRing({ store: new KeyringSecretStore({ service: 'Loupe-test' }), settings });
      expect(await fresh.activeKey()).toBe(key);
      await kr.remove(name);
      expect(await new KeyringSecretStore({ service: 'Loupe-test' }).get(name)).toBeNull();
    });
  } else {
    it('reports unavailable with a clear sentence and refuses to store', async () => {
      const env = { ...process.env };
      // make sure no session bus is reachable for this probe
      process.env.DBUS_SESSION_BUS_ADDRESS = 'unix:path=/nonexistent/loupe-test-bus';
      try {
        const store = new KeyringSecretStore({ service: 'Loupe-test' });
        const a = await store.available();
        expect(a.ok).toBe(false);
        expect(a.message).toMatch(/OS keychain is not available/);
        expect(a.message).toMatch(/never stores API keys in plain text/);
        expect(a.message).not.toMatch(/backtrace|Stack/i);
        const key = realKey();
        const err = await store.set('k', key).catch((e: SecretError) => e);
        expect(err).toBeInstanceOf(SecretError);
        expect((err as Error).message).not.toContain(key);
        expect(await store.get('k')).toBeNull();
      } finally {
        process.env.DBUS_SESSION_BUS_ADDRESS = env.DBUS_SESSION_BUS_ADDRESS;
        if (env.DBUS_SESSION_BUS_ADDRESS === undefined) delete process.env.DBUS_SESSION_BUS_ADDRESS;
      }
    });
  }
});
