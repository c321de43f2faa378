import { describe, expect, it } from 'vitest';
import { settingsSchema } from './contract-account';
import { pacingLimits, readEnvironment, SETTINGS_TABLE, SettingValueError, storedDefaults } from './settings';
import { aboveAsk, spendLimit, spendStop } from './spend-policy';

describe('the settings table', () => {
  it('names each setting once, with help, and every environment variable is LOUPE_*', () => {
    const names = SETTINGS_TABLE.map((s) => s.name);
    expect(new Set(names).size).toBe(names.length);
    for (const s of SETTINGS_TABLE) {
      expect(s.help.length).toBeGreaterThan(10);
      if (s.env) expect(s.env).toMatch(/^LOUPE_[A-Z0-9_]+$/);
    }
  });

  it('reads the environment: empty is unset, the sandbox seed defaults to 1', () => {
    expect(readEnvironment({})).toEqual({ sandboxSeed: 1 });
    expect(readEnvironment({ LOUPE_HOME: '', LOUPE_RATE_LIMIT: '', LOUPE_SANDBOX_SEED: '' })).toEqual({ sandboxSeed: 1 });
    expect(
      readEnvironment({
        LOUPE_HOME: '/d',
        LOUPE_BASE_URL: 'http://x',
        LOUPE_API_KEY: 'k',
        LOUPE_RATE_LIMIT: '30/60s',
        LOUPE_MAX_IN_FLIGHT: '3',
        LOUPE_SANDBOX_SEED: '7',
        LOUPE_SQLITE3: '/bin/sqlite3',
      }),
    ).toEqual({
      dataDir: '/d',
      baseUrl: 'http://x',
      apiKey: 'k',
      rateLimit: { requests: 30, windowSeconds: 60 },
      maxInFlight: 3,
      sandboxSeed: 7,
      sqlite3: '/bin/sqlite3',
    });
  });

  it('reads the author name of this process (LOUPE_AUTHOR), trimmed; blank is unset', () => {
    expect(readEnvironment({ LOUPE_AUTHOR: '  Ada  ' })).toEqual({ sandboxSeed: 1, authorName: 'Ada' });
    expect(readEnvironment({ LOUPE_AUTHOR: '   ' })).toEqual({ sandboxSeed: 1 });
  });

  it('refuses a value that does not fit, naming the variable', () => {
    expect(() => readEnvironment({ LOUPE_RATE_LIMIT: 'fast' })).toThrow(SettingValueError);
    expect(() => readEnvironment({ LOUPE_RATE_LIMIT: 'fast' })).toThrow(
      'LOUPE_RATE_LIMIT must look like 60/60s (requests/seconds), not "fast".',
    );
    expect(() => readEnvironment({ LOUPE_RATE_LIMIT: '0/60s' })).toThrow(
      'LOUPE_RATE_LIMIT needs at least 1 request per at least 1 second.',
    );
    expect(() => readEnvironment({ LOUPE_MAX_IN_FLIGHT: '0' })).toThrow('LOUPE_MAX_IN_FLIGHT must be a whole number ≥ 1, not "0".');
    expect(() => readEnvironment({ LOUPE_SANDBOX_SEED: 'x' })).toThrow('LOUPE_SANDBOX_SEED must be a whole number ≥ 0, not "x".');
  });

  it('gives the stored defaults and the bounds the contract checks settings with', () => {
    expect(storedDefaults()).toEqual({
      baseUrl: null,
      rateLimit: { requests: 58, windowSeconds: 60 },
      maxInFlight: 8,
      askAboveCredits: 100,
      maxWaitSeconds: 300,
      attemptTimeoutSeconds: 90,
      theme: 'system',
      remoteImages: 'on-request',
      authorName: null,
      alertWebhookUrl: null,
      alertEmail: null,
    });
    expect(settingsSchema.safeParse(storedDefaults()).success).toBe(true);
    const bad = (patch: object) => settingsSchema.partial().safeParse(patch).success;
    expect(bad({ maxInFlight: 11 })).toBe(false);
    expect(bad({ maxInFlight: 10 })).toBe(true);
    expect(bad({ rateLimit: { requests: 61, windowSeconds: 60 } })).toBe(false);
    expect(bad({ rateLimit: { requests: 60, windowSeconds: 3601 } })).toBe(false);
    expect(bad({ attemptTimeoutSeconds: 4 })).toBe(false);
    expect(bad({ askAboveCredits: -1 })).toBe(false);
    expect(bad({ theme: 'blue' })).toBe(false);
    expect(bad({ authorName: 'Ada' })).toBe(true);
    expect(bad({ authorName: null })).toBe(true);
    expect(bad({ authorName: 'x'.repeat(121) })).toBe(false);
    expect(bad({ alertWebhookUrl: 'https://hooks.example/T1' })).toBe(true);
    expect(bad({ alertWebhookUrl: null })).toBe(true);
    expect(bad({ alertWebhookUrl: 'ftp://hooks.example/T1' })).toBe(false);
    expect(bad({ alertWebhookUrl: 'hooks.example/T1' })).toBe(false);
  });

  it('pacing: the environment wins over the stored settings for this process', () => {
    const s = { rateLimit: { requests: 58, windowSeconds: 60 }, maxInFlight: 8 };
    expect(pacingLimits(s, {})).toEqual({ requests: 58, windowSeconds: 60, maxInFlight: 8 });
    expect(pacingLimits(s, { rateLimit: { requests: 10, windowSeconds: 5 }, maxInFlight: 2 })).toEqual({
      requests: 10,
      windowSeconds: 5,
      maxInFlight: 2,
    });
  });
});

describe('the spend policy', () => {
  it('asks above the threshold, never without one', () => {
    expect(aboveAsk(101, 100)).toBe(true);
    expect(aboveAsk(100, 100)).toBe(false);
    expect(aboveAsk(1e9, null)).toBe(false);
    expect(spendLimit(50, 100)).toBe(50);
    expect(spendLimit(undefined, 100)).toBe(100);
  });

  it('budget, then month, then balance, then threshold; a budget may replace the threshold', () => {
    expect(spendStop(300, { budget: 200, monthLeft: 100, askAbove: 50 })).toEqual({ why: 'budget', limit: 200 });
    expect(spendStop(150, { budget: 200, monthLeft: 100, askAbove: 50 })).toEqual({ why: 'month', limit: 100 });
    expect(spendStop(150, { balance: 120, askAbove: 50 })).toEqual({ why: 'balance', limit: 120 });
    expect(spendStop(80, { budget: 200, askAbove: 50 })).toEqual({ why: 'threshold', limit: 50 });
    expect(spendStop(80, { budget: 200, askAbove: 50, budgetReplacesAsk: true })).toBeNull();
    expect(spendStop(80, { budget: null, askAbove: 50, budgetReplacesAsk: true })).toEqual({ why: 'threshold', limit: 50 });
    expect(spendStop(40, { askAbove: 50 })).toBeNull();
  });
});
