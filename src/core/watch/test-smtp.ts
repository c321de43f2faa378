/**
 * Test helper: an SMTP receiver on 127.0.0.1 (the `smtp-server` package, a dev dependency) that
 * keeps every message it accepts, and what a mail program would read of one (headers unfolded,
 * RFC 2047 words and the body's transfer encoding decoded). Loopback only.
 */
import type { AddressInfo } from 'node:net';
import { SMTPServer, type SMTPServerOptions } from 'smtp-server';

export interface Got {
  from: string;
  to: string[];
  raw: string;
}

/** An SMTP receiver on 127.0.0.1 (a free port) keeping every message it accepts. */
export async function receiver(o: Partial<SMTPServerOptions> & { user?: string; pass?: string } = {}) {
  const got: Got[] = [];
  const auths: string[] = [];
  const server = new SMTPServer({
    secure: false,
    disabledCommands: o.user ? ['STARTTLS'] : ['STARTTLS', 'AUTH'],
    authOptional: !o.user,
    allowInsecureAuth: true,
    logger: false,
    onAuth(auth, _s, cb) {
      auths.push(auth.username ?? '');
      if (auth.username === o.user && auth.password === o.pass) cb(null, { user: auth.username });
      else cb(Object.assign(new Error('Invalid username or password'), { responseCode: 535 }));
    },
    onData(stream, session, cb) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        got.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          to: session.envelope.rcptTo.map((r) => r.address),
          raw: Buffer.concat(chunks).toString('utf8'),
        });
        cb();
      });
    },
    ...o,
  });
  await new Promise<void>((res) => server.listen(0, '127.0.0.1', () => res()));
  const port = (server.server.address() as AddressInfo).port;
  return { got, auths, port, close: () => new Promise<void>((res) => server.close(() => res())) };
}

/** The message's headers (unfolded) and body, as a reader's mail program splits them. */
export function parse(raw: string): { headers: Array<[string, string]>; body: string } {
  const cut = raw.indexOf('\r\n\r\n');
  const head = raw.slice(0, cut).replace(/\r\n[ \t]+/g, ' ');
  const headers = head
    .split('\r\n')
    .map((l): [string, string] => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]);
  return { headers, body: raw.slice(cut + 4) };
}

/** RFC 2047 words (=?UTF-8?Q?…?= / =?UTF-8?B?…?=) decoded, quoted-printable bodies decoded. */
export function decodeWords(s: string): string {
  return s.replace(/=\?utf-8\?([qb])\?([^?]*)\?=\s*/gi, (_m, enc: string, t: string) =>
    enc.toLowerCase() === 'b'
      ? Buffer.from(t, 'base64').toString('utf8')
      : Buffer.from(
          t.replace(/_/g, ' ').replace(/=([0-9a-f]{2})/gi, (_x, h: string) => String.fromCharCode(parseInt(h, 16))),
          'latin1',
        ).toString('utf8'),
  );
}
export function decodeBody(raw: string, body: string): string {
  if (/content-transfer-encoding:\s*quoted-printable/i.test(raw))
    return Buffer.from(
      body.replace(/=\r\n/g, '').replace(/=([0-9A-F]{2})/g, (_x, h: string) => String.fromCharCode(parseInt(h, 16))),
      'latin1',
    ).toString('utf8');
  if (/content-transfer-encoding:\s*base64/i.test(raw)) return Buffer.from(body.replace(/\s+/g, ''), 'base64').toString('utf8');
  return body;
}
