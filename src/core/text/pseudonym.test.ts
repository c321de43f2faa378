import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { ExportRow } from '../ports';
import { loadPseudonymSecret, PSEUDONYM_SECRET_FILE, Pseudonymiser } from './pseudonym';

const dirs: string[] = [];
const tmp = (): string => {
  const d = mkdtempSync(join(tmpdir(), 'loupe-ps-'));
  dirs.push(d);
  return d;
};
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

const HANDLES = ['AliceWonder', 'bob.builder', 'carol_99'];

function row(): ExportRow {
  const record = {
    id: '1800000000000000001',
    url: 'https://micro.example/AliceWonder/status/1800000000000000001',
    content: {
      text: 'Thanks @Bob.Builder and @carol_99! mail alice@wonder.land — aliceWonder here',
      media_urls: ['https://cdn.example/u/9100000000000000007/0.jpg'],
    },
    author: {
      id: '9100000000000000007',
      username: 'AliceWonder',
      display_name: 'Alice W.',
      avatar_url: 'https://cdn.example/avatars/9100000000000000007.jpg',
      bio: 'friends with @bob.builder',
      ext: { public_email: 'alice@wonder.land' },
    },
    ext: { coauthors: [{ id: '9100000000000000008', username: 'bob.builder' }] },
    computed: { labels_evidence: { intent: { quote: 'Thanks @Bob.Builder', sentence_index: 0 } } },
  };
  return {
    platform: 'micro_net',
    kind: 'post',
    id: record.id,
    record,
    recordJson: JSON.stringify(record),
    firstSeenAt: 0,
    lastSeenAt: 0,
    tags: ['@carol_99'],
    note: 'ask @AliceWonder',
    overrides: {},
  };
}

describe('pseudonymisation', () => {
  it('the secret is created once per data folder, 0600, and read back the same', () => {
    const d = tmp();
    const a = loadPseudonymSecret(d);
    expect(loadPseudonymSecret(d).equals(a)).toBe(true);
    expect(statSync(join(d, PSEUDONYM_SECRET_FILE)).mode & 0o777).toBe(0o600);
    expect(a.length).toBe(32);
  });

  it('no handle, id, name, e-mail or avatar survives anywhere in the row', () => {
    const p = Pseudonymiser.forDataDir(tmp());
    const out = p.row(row());
    const bytes = JSON.stringify(out);
    for (const h of [...HANDLES, 'Alice W.', 'alice@wonder.land', '9100000000000000007', '9100000000000000008', 'avatars/'])
      expect(bytes.toLowerCase(), h).not.toContain(h.toLowerCase());
    // the post's own id is not a person's: it stays
    expect(out.id).toBe('1800000000000000001');
    expect(JSON.parse(out.recordJson!)).toEqual(out.record);
  });

  it('the same account gets the same pseudonym as author, mention and co-author; stable across exports, different across projects', () => {
    const d = tmp();
    const a = Pseudonymiser.forDataDir(d).row(row());
    const b = Pseudonymiser.forDataDir(d).row(row());
    expect(b).toEqual(a);
    const rec = a.record as {
      author: { username: string; id: string; display_name: string };
      content: { text: string };
      ext: { coauthors: Array<{ username: string; id: string }> };
    };
    const bob = rec.ext.coauthors[0].username;
    expect(bob).toMatch(/^u_[0-9a-f]{16}$/);
    expect(rec.content.text).toContain(`@${bob}`);
    expect(rec.author.username).toMatch(/^u_[0-9a-f]{16}$/);
    expect(rec.author.display_name).toBe(rec.author.username);
    expect(rec.author.id).toMatch(/^id_[0-9a-f]{16}$/);
    expect(a.note).toBe(`ask @${rec.author.username}`);
    const other = Pseudonymiser.forDataDir(tmp()).row(row());
    expect((other.record as typeof rec).author.username).not.toBe(rec.author.username);
  });

  it('a profile row: its id is the account id and is replaced', () => {
    const p = Pseudonymiser.forDataDir(tmp());
    const record = {
      id: '9100000000000000007',
      url: 'https://micro.example/AliceWonder',
      author: { id: '9100000000000000007', username: 'AliceWonder', display_name: 'Alice W.' },
    };
    const out = p.row({
      platform: 'micro_net',
      kind: 'profile',
      id: record.id,
      record,
      firstSeenAt: 0,
      lastSeenAt: 0,
      tags: [],
      note: null,
      overrides: {},
    });
    expect(out.id).toBe(p.userId('micro_net', '9100000000000000007'));
    expect(JSON.stringify(out)).not.toMatch(/alicewonder|9100000000000000007|Alice W\./i);
  });

  it('a damaged secret is an error with a way out, not a silent new series', () => {
    const d = tmp();
    loadPseudonymSecret(d);
    const f = join(d, PSEUDONYM_SECRET_FILE);
    writeFileSync(f, 'nope');
    expect(() => loadPseudonymSecret(d)).toThrow(/damaged/);
    expect(readFileSync(f, 'utf8')).toBe('nope');
  });
});
