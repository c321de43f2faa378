/**
 * Issue 27 #1: alerts e-mailed through an SMTP server, tested against a receiver the test starts on
 * loopback (the `smtp-server` package): the message names the list, the run and the matched items;
 * hostile text adds no header and no recipient; the password comes from the keychain and never
 * reaches the settings file or an error; STARTTLS is required when chosen (a server that does not
 * offer it never sees the password); a failure is kept on the alert with its cause and the alert is
 * sent on the next run, once.
 */
import { readFileSync } from 'node:fs';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { alertEmailSchema, type AlertEmail } from '../../shared/alert-email';
import type { LoupeEvent, Settings } from '../../shared/contract';
import { storedDefaults } from '../../shared/settings';
import type { AlertRow } from '../archive';
import { MemorySecretStore } from '../secrets';
import { createApp } from '../app';
import { alertDeliverer } from './alert-delivery';
import { alertMessage, EMAIL_PASSWORD_SECRET, emailDueAlerts, sendEmails } from './alert-email';
import { watchEnvs } from './test-env';
import { decodeBody, decodeWords, parse, receiver } from './test-smtp';

const cfg = (port: number, more: Partial<AlertEmail> = {}): AlertEmail => ({
  host: '127.0.0.1',
  port,
  security: 'none',
  user: null,
  from: 'loupe@example.org',
  to: ['team@example.org'],
  ...more,
});

const alert = (more: Partial<AlertRow> = {}): AlertRow => ({
  alertId: 'a1',
  watchlistId: 'L1',
  runId: 'run-7',
  kind: 'labels',
  at: Date.UTC(2026, 10, 27, 8, 0),
  items: 2,
  expected: null,
  summary: '2 new items in “Brand” match the alert (Sentiment = negative).',
  readAt: null,
  itemList: [
    { id: '111', text: 'The kettle broke after a week' },
    { id: '222', text: 'Refund please' },
  ],
  ...more,
});

describe('alert e-mail through SMTP (issue 27 #1)', () => {
  it('the message names the list, the run and the matched items, from and to as set', async () => {
    const r = await receiver();
    try {
      await sendEmails(cfg(r.port, { to: ['team@example.org', 'boss@example.org'] }), null, [alertMessage(alert(), 'Brand')]);
      expect(r.got.length).toBe(1);
      const m = r.got[0];
      expect(m.from).toBe('loupe@example.org');
      expect(m.to).toEqual(['team@example.org', 'boss@example.org']);
      const { headers, body } = parse(m.raw);
      const subject = decodeWords(headers.find(([k]) => k === 'subject')![1]);
      expect(subject).toBe('Loupe · Brand: 2 new items match the alert');
      const text = decodeBody(m.raw, body);
      expect(text).toContain('Watchlist: Brand (id L1)');
      expect(text).toContain('Run: run-7, finished 2026-11-27 08:00 UTC');
      expect(text).toContain('• The kettle broke after a week  [id 111]');
      expect(text).toContain('• Refund please  [id 222]');
      expect(text).toContain('(Sentiment = negative)');
    } finally {
      await r.close();
    }
  });

  it('hostile text (line breaks, a smuggled end of data, direction overrides) adds no header and no recipient', async () => {
    const r = await receiver();
    try {
      // generated hostile names and post texts: whatever they hold, one message, the set recipient only, no Bcc/Cc, one subject line
      const bad = fc.constantFrom('\r\n', '\n', '\r', '\r\n.\r\n', '\u2028', '\u0085', '\u202e', '\t', '\0');
      const hostile = fc
        .array(
          fc.oneof(
            bad,
            fc.constantFrom(
              'Bcc: evil@example.net',
              'Cc: evil@example.net',
              'RCPT TO:<evil@example.net>',
              'MAIL FROM:<x@example.net>',
              'Subject: pwned',
              'X-Evil: 1',
              'text',
            ),
            fc.string({ maxLength: 4 }),
          ),
          { maxLength: 10 },
        )
        .map((a) => a.join(''));
      const cases = fc.sample(fc.tuple(hostile, hostile), { numRuns: 12, seed: 27 });
      cases.push([
        'Brand\r\nBcc: evil@example.net',
        'great\r\n.\r\nMAIL FROM:<x@example.net>\r\nRCPT TO:<evil@example.net>\r\nDATA\r\nSubject: pwned\r\n\r\nhi\r\n.\r\n',
      ]);
      for (const [name, text] of cases) {
        const before = r.got.length;
        await sendEmails(cfg(r.port), null, [
          alertMessage(
            alert({ summary: `1 new item in “${name}” match the alert.`, itemList: [{ id: 'x\r\nBcc: evil@example.net', text }] }),
            name,
          ),
        ]);
        expect(r.got.length).toBe(before + 1);
        const m = r.got[r.got.length - 1];
        expect(m.to).toEqual(['team@example.org']);
        const { headers } = parse(m.raw);
        const names = headers.map(([k]) => k);
        expect(names.filter((k) => k === 'subject').length).toBe(1);
        expect(names).not.toContain('bcc');
        expect(names).not.toContain('cc');
        expect(names).not.toContain('x-evil');
        const subject = decodeWords(headers.find(([k]) => k === 'subject')![1]);
        expect(subject).not.toMatch(/[\r\n\u2028\u0085\u202e\0]/);
      }
    } finally {
      await r.close();
    }
  });

  it('signs in with the password from the keychain; a wrong one is a cause in words without the password', async () => {
    const r = await receiver({ user: 'ana', pass: 'right-horse-battery' });
    try {
      await sendEmails(cfg(r.port, { user: 'ana' }), 'right-horse-battery', [alertMessage(alert(), 'Brand')]);
      expect(r.got.length).toBe(1);
      const err = await sendEmails(cfg(r.port, { user: 'ana' }), 'wrong-staple-horse', [alertMessage(alert(), 'Brand')]).catch(
        (e: Error) => e,
      );
      expect(err).toBeInstanceOf(Error);
      expect((err as Error).message).toContain('refused the user name or password');
      expect((err as Error).message).not.toContain('wrong-staple-horse');
      expect(r.got.length).toBe(1);
      // a user without a stored password: said, nothing sent
      await expect(sendEmails(cfg(r.port, { user: 'ana' }), null, [alertMessage(alert(), 'Brand')])).rejects.toThrow(
        /no password is stored for ana/,
      );
    } finally {
      await r.close();
    }
  });

  it('STARTTLS chosen: a server that does not offer it is refused before any password is sent', async () => {
    const r = await receiver({ user: 'ana', pass: 'pw-123456', hideSTARTTLS: true });
    try {
      const err = await sendEmails(cfg(r.port, { user: 'ana', security: 'starttls' }), 'pw-123456', [alertMessage(alert(), 'Brand')], {
        timeoutMs: 5000,
      }).catch((e: Error) => e);
      expect(err).toBeInstanceOf(Error);
      expect(r.auths).toEqual([]);
      expect(r.got).toEqual([]);
    } finally {
      await r.close();
    }
  });

  it('no encryption only to this computer: the settings refuse "none" for any other host', () => {
    const base = { port: 25, user: null, from: 'a@example.org', to: ['b@example.org'] };
    for (const host of ['localhost', '127.0.0.1', '127.3.2.1', '::1', '[::1]'])
      expect(alertEmailSchema.safeParse({ ...base, host, security: 'none' }).success).toBe(true);
    fc.assert(
      fc.property(fc.domain(), (host) => {
        fc.pre(host !== 'localhost');
        expect(alertEmailSchema.safeParse({ ...base, host, security: 'none' }).success).toBe(false);
        expect(alertEmailSchema.safeParse({ ...base, host, security: 'starttls' }).success).toBe(true);
      }),
      { seed: 27, numRuns: 50 },
    );
    for (const host of ['10.0.0.1', '192.168.1.5', 'smtp.example.org', '128.0.0.1'])
      expect(alertEmailSchema.safeParse({ ...base, host, security: 'none' }).success).toBe(false);
    expect(
      alertEmailSchema.safeParse({ ...base, host: 'smtp.example.org', security: 'tls', to: ['a@example.org\r\nBcc: e@example.net'] })
        .success,
    ).toBe(false);
  });
});

const watchEnv = watchEnvs();

describe('a run’s alerts e-mailed; a failure kept on the alert and sent on the next run, once', () => {
  it('nobody listening: the alert is kept failed with the cause; the next run sends it; a third sends nothing more', async () => {
    const r = await receiver();
    await r.close(); // its port, with nobody listening
    const secrets = new MemorySecretStore();
    let port = r.port;
    const events: LoupeEvent[] = [];
    const settings = (): Settings => ({ ...storedDefaults(), alertEmail: cfg(port) }) as Settings;
    let env: Awaited<ReturnType<typeof watchEnv>> | null = null;
    const alerts = {
      emailDue: (now: number, limit?: number) => env!.archive.watchlists.alerts.emailDue(now, limit),
      claimEmail: (id: string, now: number) => env!.archive.watchlists.alerts.claimEmail(id, now),
      emailDone: (id: string, now: number, error: string | null) => env!.archive.watchlists.alerts.emailDone(id, now, error),
    };
    const deliver = alertDeliverer({
      settings,
      emit: (e) => events.push(e),
      email: {
        secrets,
        alerts,
        listName: (id) => env!.archive.watchlists.list(id)?.name ?? '',
        now: () => env!.clock.now(),
        timeoutMs: 5000,
      },
    });
    env = await watchEnv({ seed: 51, service: { deliver, willEmail: () => true } });
    const e = env;
    const l = await e.watch.create({
      name: 'Brand',
      watches: [{ platform: 'photo_net', endpoint: 'profile/posts', params: { handle: 'alice' } }],
      alert: [{ family: 'sponsored', field: 'p', op: 'gte', value: 0 }],
    });
    const run1 = await e.watch.run(l.id, { approved: true });
    expect(run1.alerts).toBeGreaterThan(0);
    const [a] = e.archive.watchlists.alerts.list();
    expect(a.email).toMatchObject({ state: 'failed', tries: 1 });
    expect(a.email!.error).toContain(`127.0.0.1:${port} could not be reached`);
    expect(events.some((x) => x.type === 'notice' && /could not be e-mailed.*next run/.test(x.message))).toBe(true);

    // the receiver is up; the next run (nothing new to alert about) sends the kept alert
    const up = await receiver();
    port = up.port;
    try {
      const run2 = await e.watch.run(l.id, { approved: true });
      expect(run2.alerts ?? 0).toBe(0);
      expect(up.got.length).toBe(1);
      const text = decodeBody(up.got[0].raw, parse(up.got[0].raw).body);
      expect(text).toContain('Watchlist: Brand');
      expect(text).toContain(`Run: ${run1.runId}`);
      expect(e.archive.watchlists.alerts.get(a.alertId)!.email).toMatchObject({ state: 'sent', error: null, tries: 2 });
      await e.watch.run(l.id, { approved: true });
      expect(up.got.length).toBe(1);
      // one alert, one message: a claim taken cannot be taken again
      expect(e.archive.watchlists.alerts.claimEmail(a.alertId, e.clock.now())).toBe(false);
    } finally {
      await up.close();
    }
  });

  it('no SMTP server set: alerts are not marked for e-mail and nothing is sent', async () => {
    const secrets = new MemorySecretStore();
    const r = await emailDueAlerts({
      settings: () => ({ alertEmail: null }),
      secrets,
      alerts: {
        emailDue: () => [alert({ email: { state: 'pending', error: null, tries: 0, at: null } })],
        claimEmail: () => true,
        emailDone: () => undefined,
      },
      listName: () => 'Brand',
      now: () => 0,
    });
    expect(r).toEqual({ sent: 0, failed: [] });
  });
});

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

describe('the app: the password in the keychain only; "Send test e-mail" says what came of it', () => {
  it('stores the password in the secret store, never in settings.json; the test e-mail reaches the receiver', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'loupe-email-'));
    dirs.push(dataDir);
    const secrets = new MemorySecretStore();
    const app = createApp({ dataDir, secrets, door: 'cli', watchOthersMs: 0 });
    const r = await receiver({ user: 'ana', pass: 'sesame-open-please' });
    try {
      expect(await app.impl['settings.testEmail']({})).toMatchObject({
        ok: false,
        message: expect.stringContaining('No SMTP server is set'),
      });
      await app.impl['settings.update']({ alertEmail: cfg(r.port, { user: 'ana' }) });
      expect((await app.impl['settings.testEmail']({})).message).toContain('no password is stored for ana');
      expect(await app.impl['settings.emailPassword']({ password: 'sesame-open-please' })).toEqual({ stored: true, backend: 'memory' });
      expect(await secrets.get(EMAIL_PASSWORD_SECRET)).toBe('sesame-open-please');
      expect(readFileSync(join(dataDir, 'settings.json'), 'utf8')).not.toContain('sesame');
      const ok = await app.impl['settings.testEmail']({});
      expect(ok).toMatchObject({ ok: true, message: expect.stringContaining('Sent to team@example.org') });
      expect(r.got.length).toBe(1);
      expect(decodeWords(parse(r.got[0].raw).headers.find(([k]) => k === 'subject')![1])).toBe('Loupe · test e-mail');
      // the keys list never shows it
      expect((await app.impl['keys.list']({})).map((k) => k.name)).toEqual([]);
      expect(await app.impl['settings.emailPassword']({ password: null })).toEqual({ stored: false, backend: 'memory' });
      expect(EMAIL_PASSWORD_SECRET.length).toBeGreaterThan(64); // longer than any API key name: never one
    } finally {
      await r.close();
      await app.close();
    }
  });
});
