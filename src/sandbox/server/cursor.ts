/**
 * Opaque, HMAC-signed cursors (spec "Pagination rules").
 *   sdrc1.<base64url(JSON payload)>.<base64url(HMAC-SHA256 truncated to 16 bytes)>
 * The payload binds the cursor to (platform, endpoint, hash of the list-defining params, include
 * set) and records when it was issued (sandbox ms). Position is keyset-like: the id and date of the
 * last row served plus the count of rows served so far (fallback when that row vanished), so posts
 * arriving at the head of a feed do not shift later pages.
 */
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';

export const CURSOR_PREFIX = 'sdrc1.';

export interface CursorPos {
  /** id of the last row served (null before any row). */
  lastId: string | null;
  /** publishedAt of that row (ms) or null. */
  lastAt: number | null;
  /** rows of the source list consumed so far. */
  offset: number;
  /** 1-based number of the NEXT page. */
  page: number;
  /** an upstream-empty page was already served at this position. */
  emptyDone?: boolean;
}

export interface CursorPayload extends CursorPos {
  v: 1;
  p: string; // platform
  e: string; // endpoint path
  b: string; // binding hash of list-defining params (incl. include)
  t: number; // issued at, sandbox ms
}

export class CursorCodec {
  constructor(private readonly secret: Buffer) {}

  encode(platform: string, endpoint: string, binding: string, pos: CursorPos, issuedAt: number): string {
    const payload: CursorPayload = { v: 1, p: platform, e: endpoint, b: binding, t: issuedAt, ...pos };
    const body = Buffer.from(JSON.stringify(payload), 'utf8').toString('base64url');
    return `${CURSOR_PREFIX}${body}.${this.sign(body)}`;
  }

  /** Decode and check a cursor; `null` reason on success. */
  decode(
    token: string,
    expect: { platform: string; endpoint: string; binding: string; now: number; ttlMs: number },
  ): { ok: true; pos: CursorPos; issuedAt: number } | { ok: false; message: string } {
    const bad = {
      ok: false as const,
      message: 'The cursor is not valid for this request (edited or from another endpoint). Start again without a cursor.',
    };
    if (!token.startsWith(CURSOR_PREFIX)) return bad;
    const rest = token.slice(CURSOR_PREFIX.length);
    const dot = rest.indexOf('.');
    if (dot <= 0) return bad;
    const body = rest.slice(0, dot);
    const sig = rest.slice(dot + 1);
    const want = Buffer.from(this.sign(body));
    const got = Buffer.from(sig);
    if (want.length !== got.length || !timingSafeEqual(want, got)) return bad;
    let payload: CursorPayload;
    try {
      payload = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as CursorPayload;
    } catch {
      return bad;
    }
    if (payload.v !== 1 || payload.p !== expect.platform || payload.e !== expect.endpoint || payload.b !== expect.binding) return bad;
    if (expect.now - payload.t > expect.ttlMs)
      return { ok: false, message: 'The cursor has expired. Start the walk again without a cursor.' };
    return {
      ok: true,
      issuedAt: payload.t,
      pos: { lastId: payload.lastId, lastAt: payload.lastAt, offset: payload.offset, page: payload.page, emptyDone: payload.emptyDone },
    };
  }

  private sign(body: string): string {
    return createHmac('sha256', this.secret).update(body).digest().subarray(0, 16).toString('base64url');
  }
}

/** Stable hash of a param map (sorted keys). */
export function paramsHash(params: Record<string, string>): string {
  const keys = Object.keys(params).sort();
  const canon = keys.map((k) => `${encodeURIComponent(k)}=${encodeURIComponent(params[k])}`).join('&');
  return createHash('sha256').update(canon).digest('base64url').slice(0, 22);
}
