/**
 * What strangers wrote never drives the terminal (issue 26): for random texts and names full of
 * controls, bidi controls and lone surrogates, the human-readable output of `loupe library`,
 * `loupe analyze top` and the error lines holds no byte below 0x20 but the line ends (and tabs),
 * no DEL / C1 and no bidi control; the JSON output parses back to exactly what was archived.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { openArchive } from '../core/archive';
import { post } from '../core/archive/test-fixtures';
import { archivePath } from '../core/paths';
import { startSandbox, type SandboxHandle } from '../sandbox';
import { visible } from '../shared/visible';
import { runCli } from './main';
import { guarded, rawOf } from './terminal';

/** characters a terminal acts on, or that reorder what it shows */
const DANGER = [
  '\x1b',
  '\x07',
  '\b',
  '\0',
  '\r',
  '\n',
  '\t',
  '\x0b',
  '\x0c',
  '\x7f',
  '\x85',
  '\x9b',
  '\x9d',
  '\u061c',
  '\u200e',
  '\u200f',
  '\u202a',
  '\u202b',
  '\u202c',
  '\u202d',
  '\u202e',
  '\u2066',
  '\u2067',
  '\u2068',
  '\u2069',
  '\u2028',
  '\u2029',
  '\ud800',
  '\udfff',
  '\x1b]0;pwned\x07',
  '\x1b[2J',
  '\x1b]52;c;aGk=\x07',
  '\\x1b',
];
const piece = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...DANGER) },
  { weight: 2, arbitrary: fc.string({ unit: 'grapheme', maxLength: 6 }) },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 4 }) },
  { weight: 1, arbitrary: fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c)) },
);
const nasty = fc.array(piece, { maxLength: 12 }).map((a) => a.join(''));

/* eslint-disable no-control-regex */
const BAD =
  /[\u0000-\u0008\u000a-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
/* eslint-enable no-control-regex */
/** a human-readable text: every line (split at its line ends) holds nothing a terminal acts on */
function expectShowable(text: string, what: string): void {
  // a progress line is cleared by Loupe's own '\r ESC [2K' (terminal.ts progress)
  for (const l of text
    .replaceAll('\r\x1b[2K', '')
    .replace(/\r?\n$/, '')
    .split(/\r?\n/))
    expect(BAD.exec(l), `${what}: ${JSON.stringify(l)}`).toBeNull();
}

describe('visible()', () => {
  it('leaves no control, bidi control or lone surrogate; line ends only where allowed', () => {
    fc.assert(
      fc.property(nasty, (s) => {
        const v = visible(s);
        expect(BAD.exec(v)).toBeNull();
        expect(v).not.toContain('\t');
        const lines = visible(s, { newlines: true, tabs: true });
        // LF and CRLF pass; nothing else below 0x20 but TAB
        expect(BAD.exec(lines.replace(/\r?\n/g, ''))).toBeNull();
        expect(lines.split('\n').length).toBe(s.split('\n').length);
      }),
      { numRuns: 2000 },
    );
  });

  it('is the identity on text that holds nothing to escape', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme' }), (s) => {
        fc.pre(!BAD.test(s) && !s.includes('\t'));
        expect(visible(s)).toBe(s);
      }),
    );
  });

  it('keeps JSON exact: any JSON text passed through it parses to the same value', () => {
    const json = fc.jsonValue({ maxDepth: 2 }).chain((v) => fc.tuple(fc.constant(v), nasty, nasty));
    fc.assert(
      fc.property(json, ([v, a, b]) => {
        const value = { v, a, [b]: a };
        const shown = visible(JSON.stringify(value) + '\n', { newlines: true, tabs: true });
        expect(JSON.parse(shown)).toEqual(JSON.parse(JSON.stringify(value)));
        expectShowable(shown, 'json');
      }),
      { numRuns: 1000 },
    );
  });
});

describe('the command line shows what strangers wrote escaped', () => {
  let dir: string;
  let sb: SandboxHandle;
  const env = (d: string): NodeJS.ProcessEnv => ({ LOUPE_HOME: d, LOUPE_API_KEY: '', HOME: d });

  /** a run with stdout and stderr as terminals (or not) */
  async function loupe(args: string[], e: NodeJS.ProcessEnv, tty: boolean) {
    const stdout = Object.assign(new PassThrough(), { isTTY: tty });
    const stderr = Object.assign(new PassThrough(), { isTTY: tty });
    const stdin = new PassThrough();
    stdin.end();
    let out = '';
    let err = '';
    stdout.on('data', (d) => (out += String(d)));
    stderr.on('data', (d) => (err += String(d)));
    const code = await runCli(args, { stdout, stderr, stdin, env: e });
    return { code, out, err };
  }

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'loupe-terminal-'));
    sb = await startSandbox({ port: 0, seed: 3, balance: 1000, freeCalls: 0 });
  });
  afterAll(async () => {
    await sb.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('library, library --jsonl and analyze top, for random posts and names', async () => {
    let run = 0;
    // lone surrogates cannot be archived (UTF-8 has none: the archive holds U+FFFD), so the
    // archived texts are well-formed; visible() itself is tested with them above
    const text = nasty.map((s) => s.replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, '\ufffd'));
    await fc.assert(
      fc.asyncProperty(fc.array(fc.tuple(text, text), { minLength: 1, maxLength: 12 }), fc.boolean(), async (posts, tty) => {
        const d = join(dir, `r${run++}`);
        mkdirSync(d);
        const archive = openArchive(archivePath(d));
        archive.ingestItems(
          posts.map(([text, name], i) => ({
            platform: 'photo_net',
            kind: 'post',
            record: post({
              id: String(1000 + i),
              text,
              author: { id: `a${i}`, username: `u${i}${name}`, display_name: name },
              published_at: new Date(Date.UTC(2024, 0, 1 + i)).toISOString(),
            }),
          })),
          { callId: 'seed', source: 'test' },
        );
        archive.close();

        const lib = await loupe(['library', '--limit', '100'], env(d), tty);
        expect(lib.code, lib.err).toBe(0);
        expectShowable(lib.out, 'library');
        expectShowable(lib.err, 'library stderr');
        expect(lib.out.split('\n').length - 1).toBe(posts.length); // one line per post, whatever the text

        const jsonl = await loupe(['library', '--limit', '100', '--jsonl'], env(d), tty);
        const rows = jsonl.out
          .trimEnd()
          .split('\n')
          .map((l) => JSON.parse(l) as { id: string; text: string | null; author: { username: string } });
        expectShowable(jsonl.out, 'jsonl');
        // the same rows as the export writes them to a file (never through the terminal's guard)
        const file = join(d, 'x.jsonl');
        expect((await loupe(['export', '--format', 'jsonl', '-o', file], env(d), tty)).code).toBe(0);
        const held = new Map(
          readFileSync(file, 'utf8')
            .trimEnd()
            .split('\n')
            .map((l) => {
              const e = JSON.parse(l) as { id: string; record: { content: { text: string }; author: { username: string } } };
              return [e.id, e.record] as const;
            }),
        );
        expect(rows).toHaveLength(posts.length);
        for (const r of rows) {
          expect(r.text).toBe(held.get(r.id)?.content.text);
          expect(r.author.username).toBe(held.get(r.id)?.author.username);
        }
        const names = [...held.values()].map((h) => h.author.username).sort();

        for (const format of ['csv', 'json'] as const) {
          const top = await loupe(['analyze', 'top', '--field', 'authors', '--format', format], env(d), tty);
          expect(top.code, top.err).toBe(0);
          if (format === 'json') {
            expectShowable(top.out, 'analyze json');
            const terms = (JSON.parse(top.out) as { rows: Array<{ term: string }> }).rows.map((r) => r.term).sort();
            expect(terms).toEqual(names);
          } else if (tty) expectShowable(top.out, 'analyze csv on a terminal');
        }
      }),
      { numRuns: 6 },
    );
  });

  it("an error line with the service's message, and commander's own errors", async () => {
    const message = 'bad \x1b]0;pwned\x07 \x1b[2J\u202eevil\u202c\r\nloupe: fake line\x9b1m';
    await fetch(`${sb.url}/__admin/faults`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ faults: [{ kind: 'status', status: 400, type: 'INVALID_PARAMETER', message, count: 5 }] }),
    });
    const d = join(dir, 'err');
    mkdirSync(d);
    const r = await loupe(
      ['call', 'photo_net/profile/posts', '-p', 'handle=nasa', '--yes'],
      { ...env(d), LOUPE_BASE_URL: sb.url, LOUPE_API_KEY: sb.key },
      true,
    );
    expect(r.code).toBe(3);
    expectShowable(r.err, 'error');
    expect(r.err).toContain('\\x1b]0;pwned\\x07');
    expect(r.err).toContain('\\u202eevil');
    expect(
      r.err
        .trimEnd()
        .split('\n')
        .filter((l) => l.startsWith('loupe:')),
    ).toHaveLength(1);
    const u = await loupe(['library', '--\x1b[31mred'], env(d), true);
    expect(u.code).toBe(2);
    expectShowable(u.err, 'usage');
  });

  it('a guarded stream passes its events and raw writes through', () => {
    const s = new PassThrough();
    let got = '';
    s.on('data', (d) => (got += String(d)));
    const g = guarded(s);
    g.write('a\x1bb\n');
    rawOf(g).write('\x1b[2K');
    expect(got).toBe('a\\x1bb\n\x1b[2K');
    expect(rawOf(g)).toBe(s);
    expect(guarded(g)).toBe(g);
  });
});
