/**
 * Issue 27 #1 at the command line: `loupe alerts email` sets the SMTP server (each flag what it
 * names; `none` refused for another host), `loupe alerts test-email` sends one message to a
 * receiver on loopback and says so (exit 0), or says why not (exit 4); `--off` removes it.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { decodeWords, parse, receiver } from '../core/watch/test-smtp';
import { runCaptured } from './run-captured';

describe('loupe alerts email / test-email (issue 27 #1)', () => {
  it('sets, shows, tests against a local receiver, refuses no encryption to another host, and turns off', async () => {
    const home = mkdtempSync(join(tmpdir(), 'loupe-cli-email-'));
    const loupe = (args: string[]) => runCaptured(args, { LOUPE_HOME: home });
    const r = await receiver();
    try {
      expect((await loupe(['alerts', 'email'])).out).toMatch(/not e-mailed/);
      const bad = await loupe([
        'alerts',
        'email',
        '--host',
        'smtp.example.org',
        '--security',
        'none',
        '--from',
        'a@example.org',
        '--to',
        'b@example.org',
      ]);
      expect(bad.code).toBe(2);
      expect(bad.err).toMatch(/only to a server on this computer/);
      const set = await loupe([
        'alerts',
        'email',
        '--host',
        '127.0.0.1',
        '--port',
        String(r.port),
        '--security',
        'none',
        '--no-user',
        '--from',
        'loupe@example.org',
        '--to',
        'a@example.org,b@example.org',
      ]);
      expect(set.code).toBe(0);
      expect(set.out).toContain(`SMTP server: 127.0.0.1:${r.port}`);
      expect(set.out).toContain('To: a@example.org, b@example.org');
      // a flag changes only what it names
      const to = await loupe(['alerts', 'email', '--to', 'c@example.org', '--json']);
      expect(JSON.parse(to.out).alertEmail).toEqual({
        host: '127.0.0.1',
        port: r.port,
        security: 'none',
        user: null,
        from: 'loupe@example.org',
        to: ['c@example.org'],
      });
      const ok = await loupe(['alerts', 'test-email']);
      expect(ok.code).toBe(0);
      expect(ok.out).toContain('Sent to c@example.org');
      expect(r.got.length).toBe(1);
      expect(r.got[0].to).toEqual(['c@example.org']);
      expect(decodeWords(parse(r.got[0].raw).headers.find(([k]) => k === 'subject')![1])).toBe('Loupe · test e-mail');
      expect((await loupe(['alerts', 'email', '--off'])).code).toBe(0);
      const off = await loupe(['alerts', 'test-email']);
      expect(off.code).toBe(4);
      expect(off.err).toMatch(/No SMTP server is set/);
    } finally {
      await r.close();
    }
  });

  it('nobody listening: the cause and exit 4', async () => {
    const home = mkdtempSync(join(tmpdir(), 'loupe-cli-email-'));
    const loupe = (args: string[]) => runCaptured(args, { LOUPE_HOME: home });
    const r = await receiver();
    await r.close();
    await loupe([
      'alerts',
      'email',
      '--host',
      '127.0.0.1',
      '--port',
      String(r.port),
      '--security',
      'none',
      '--from',
      'loupe@example.org',
      '--to',
      'a@example.org',
    ]);
    const t = await loupe(['alerts', 'test-email']);
    expect(t.code).toBe(4);
    expect(t.err).toContain(`127.0.0.1:${r.port} could not be reached`);
  });
});
