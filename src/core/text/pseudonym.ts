/**
 * Pseudonymised exports (docs/export.md "Pseudonymised exports").
 *
 * Every identity an exported row carries — author ids, usernames (handles), display names,
 * avatars, e-mail addresses, mentions in any text, and the URLs that embed a handle or an id —
 * is replaced by a keyed hash: HMAC-SHA256 under a per-project secret, truncated to 64 bits
 * (16 hex digits). The same account gets the same pseudonym in every export of the project (the
 * author of a post and an `@mention` of them in another post meet in a network); without the
 * secret nobody can compute a pseudonym from a handle, so the mapping cannot be reversed by
 * hashing candidate handles. The secret lives in the data folder (`pseudonym-secret`, mode 0600),
 * is created on first use and is never written into an export.
 */
import { createHmac, randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ExportRow } from '../ports';

export const PSEUDONYM_SECRET_FILE = 'pseudonym-secret';

/** A mention: `@handle` not preceded by a handle character, `.` or `@` (so e-mail addresses are not mentions). */
const MENTION = /(^|[^\p{L}\p{N}_.@])@([\p{L}\p{N}_](?:[\p{L}\p{N}_.]*[\p{L}\p{N}_])?)/gu;
/** E-mail addresses anywhere in text. */
const EMAIL = /[\p{L}\p{N}._%+-]+@[\p{L}\p{N}-]+(?:\.[\p{L}\p{N}-]+)+/gu;
/** Keys whose value is a person's identity wherever they appear (person objects below). */
const HANDLE_KEYS = new Set(['username', 'handle', 'screen_name', 'user_name']);
const NAME_KEYS = new Set(['display_name', 'full_name', 'name', 'nickname']);
const AVATAR_KEYS = new Set(['avatar_url', 'profile_pic_url', 'profile_image_url', 'avatar']);
const SECRET_KEYS = new Set(['public_email', 'email', 'phone', 'public_phone', 'urn']);
/** Keys that hold a person's id inside a person object (an object with a handle key, or the record's `author`). */
const ID_KEYS = new Set(['id', 'user_id', 'author_id', 'pk']);

const escapeRe = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * Read the project's secret from `dataDir`, creating it (32 random bytes, mode 0600) on first use.
 * Two processes creating it at once agree: the file is created exclusively and re-read.
 */
export function loadPseudonymSecret(dataDir: string): Buffer {
  const file = join(dataDir, PSEUDONYM_SECRET_FILE);
  const read = (): Buffer | null => {
    try {
      const s = readFileSync(file, 'utf8').trim();
      if (!/^[0-9a-f]{64}$/.test(s))
        throw new Error(
          `the pseudonym secret ${file} is damaged (expected 64 hex digits); restore it from a backup, or delete it to start a new series of pseudonyms`,
        );
      return Buffer.from(s, 'hex');
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw e;
    }
  };
  const have = read();
  if (have) return have;
  try {
    writeFileSync(file, randomBytes(32).toString('hex') + '\n', { flag: 'wx', mode: 0o600 });
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code !== 'EEXIST') {
      throw new Error(
        `A pseudonymised export needs the project's pseudonym secret, which is created in the data folder on first use, but ${file} could not be created (${String(code ?? (e as Error).message)}); export once from a writable data folder first.`,
      );
    }
  }
  const made = read();
  if (!made) throw new Error(`the pseudonym secret ${file} disappeared while it was being created`);
  return made;
}

/** Replaces identities by keyed hashes; one instance per export (it memoises pseudonyms). */
export class Pseudonymiser {
  private readonly memo = new Map<string, string>();
  constructor(private readonly secret: Buffer) {
    if (secret.length < 16) throw new Error('pseudonym secret too short');
  }

  static forDataDir(dataDir: string): Pseudonymiser {
    return new Pseudonymiser(loadPseudonymSecret(dataDir));
  }

  private hash(domain: string, value: string): string {
    const k = `${domain}\u0000${value}`;
    let h = this.memo.get(k);
    if (h === undefined) {
      h = createHmac('sha256', this.secret).update(k).digest('hex').slice(0, 16);
      if (this.memo.size > 200_000) this.memo.clear();
      this.memo.set(k, h);
    }
    return h;
  }

  /** A handle (case-insensitive, leading `@` ignored) on a platform: `u_<16 hex>`. */
  handle(platform: string, handle: string): string {
    return `u_${this.hash(`h\u0000${platform}`, handle.replace(/^@/, '').normalize('NFC').toLowerCase())}`;
  }

  /** An account id on a platform: `id_<16 hex>` (still a string, like every id). */
  userId(platform: string, id: string): string {
    return `id_${this.hash(`i\u0000${platform}`, id)}`;
  }

  /** Any other identifying value (an avatar URL, an e-mail address, a name without a handle). */
  opaque(kind: string, value: string): string {
    return `${kind}_${this.hash(`o\u0000${kind}`, value)}`;
  }

  /**
   * The row with every identity replaced. The record is rebuilt (never mutated) and carried as
   * JSON text too, so the CSV export's worker threads receive it as they receive archive rows.
   */
  row(row: ExportRow): ExportRow {
    const ctx = new RowContext(this, row.platform);
    const rec = row.record && typeof row.record === 'object' ? row.record : {};
    // first pass: learn the identities this record names (to find them again inside URLs and text)
    ctx.learn(rec, 'record', row.kind === 'profile');
    const record = ctx.rewrite(rec, 'record', row.kind === 'profile') as Record<string, unknown>;
    const id = row.kind === 'profile' ? this.userId(row.platform, row.id) : row.id;
    return {
      ...row,
      id,
      record,
      recordJson: JSON.stringify(record),
      note: row.note === null ? null : ctx.text(row.note),
      tags: row.tags.map((t) => ctx.text(t)),
      overrides: ctx.rewrite(row.overrides, 'overrides', false) as ExportRow['overrides'],
    };
  }

  /** Pseudonymise one free text (mentions, e-mail addresses) as `row` does. */
  text(platform: string, s: string): string {
    return new RowContext(this, platform).text(s);
  }
}

/** The identities one record names and how they are replaced in it. */
class RowContext {
  /** original (lower-cased for handles) → pseudonym, for search inside URLs and text */
  private readonly known = new Map<string, string>();
  private pattern: RegExp | null | undefined;
  constructor(
    private readonly p: Pseudonymiser,
    private readonly platform: string,
  ) {}

  private isPerson(o: Record<string, unknown>, key: string, isProfile: boolean): boolean {
    if (key === 'author' || key === 'user' || key === 'owner' || (key === 'record' && isProfile)) return true;
    for (const k of HANDLE_KEYS) if (typeof o[k] === 'string') return true;
    return false;
  }

  learn(v: unknown, key: string, isProfile: boolean): void {
    if (Array.isArray(v)) {
      for (const x of v) this.learn(x, key, false);
      return;
    }
    if (!v || typeof v !== 'object') return;
    const o = v as Record<string, unknown>;
    const person = this.isPerson(o, key, isProfile);
    for (const [k, x] of Object.entries(o)) {
      if (person && HANDLE_KEYS.has(k) && typeof x === 'string' && x.length > 0)
        this.add(x.replace(/^@/, '').toLowerCase(), this.p.handle(this.platform, x));
      else if (person && ID_KEYS.has(k) && (typeof x === 'string' || typeof x === 'number') && String(x).length > 0)
        this.add(String(x), this.p.userId(this.platform, String(x)));
      else this.learn(x, k, false);
    }
  }

  private add(original: string, pseudonym: string): void {
    if (original.length === 0) return;
    this.known.set(original, pseudonym);
    this.pattern = undefined;
  }

  /** Known handles and ids, bounded so that `ann` does not match inside `joanna`. */
  private knownPattern(): RegExp | null {
    if (this.pattern !== undefined) return this.pattern;
    const keys = [...this.known.keys()].sort((a, b) => b.length - a.length).map(escapeRe);
    this.pattern = keys.length === 0 ? null : new RegExp(`(?<![\\p{L}\\p{N}_])(?:${keys.join('|')})(?![\\p{L}\\p{N}_])`, 'giu');
    return this.pattern;
  }

  text(s: string): string {
    let out = s.replace(EMAIL, (m) => this.p.opaque('email', m.toLowerCase()));
    out = out.replace(MENTION, (_m, pre: string, h: string) => `${pre}@${this.p.handle(this.platform, h)}`);
    const re = this.knownPattern();
    if (re) out = out.replace(re, (m) => this.known.get(m.toLowerCase()) ?? this.known.get(m) ?? m);
    return out;
  }

  rewrite(v: unknown, key: string, isProfile: boolean): unknown {
    if (typeof v === 'string') return this.text(v);
    if (Array.isArray(v)) return v.map((x) => this.rewrite(x, key, false));
    if (!v || typeof v !== 'object') return v;
    const o = v as Record<string, unknown>;
    const person = this.isPerson(o, key, isProfile);
    const handle = person ? [...HANDLE_KEYS].map((k) => o[k]).find((x): x is string => typeof x === 'string' && x.length > 0) : undefined;
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(o)) {
      if (x === null || x === undefined) out[k] = x;
      else if (SECRET_KEYS.has(k) && (typeof x === 'string' || typeof x === 'number')) out[k] = this.p.opaque(k, String(x));
      else if (person && HANDLE_KEYS.has(k) && typeof x === 'string') out[k] = this.p.handle(this.platform, x);
      else if (person && ID_KEYS.has(k) && (typeof x === 'string' || typeof x === 'number'))
        out[k] = this.p.userId(this.platform, String(x));
      // a display name becomes the account's handle pseudonym (a name is as identifying as a handle)
      else if (person && NAME_KEYS.has(k) && typeof x === 'string')
        out[k] = handle !== undefined ? this.p.handle(this.platform, handle) : this.p.opaque('name', x);
      else if (AVATAR_KEYS.has(k) && typeof x === 'string') out[k] = this.p.opaque('avatar', x);
      else out[k] = this.rewrite(x, k, false);
    }
    return out;
  }
}
