/**
 * E-mail delivery of alerts (issue 27 #1) through the SMTP server in Settings (`alertEmail`),
 * with nodemailer. The password is in the OS keychain (the SecretStore, as API keys are) under
 * `EMAIL_PASSWORD_SECRET` — a name longer than any API key's (64), so it can never be taken for
 * one — and never in settings.json, a message, an error or a log.
 *
 * The message is plain text: what matched, in which run of which list, and the items it names.
 * Everything a stranger wrote (a post's text) and everything a user typed (a list's name) goes
 * into the subject only after every control and direction character is escaped and whitespace
 * is one space, so no text can add a header line, and into the body as escaped text lines;
 * nodemailer encodes the headers itself on top of that. Addresses are checked by the settings'
 * schema (src/shared/alert-email.ts).
 *
 * Security: `tls` (TLS from the first byte), `starttls` (the upgrade is required: a server that
 * does not offer it is refused before any password is sent) or `none`, accepted only for a server
 * on this computer. Certificates are checked (nodemailer's default).
 */
import type { AlertEmail } from '../../shared/alert-email';
import { visible } from '../../shared/visible';
import type { AlertItem, AlertRow } from '../archive';

/** Where the password is read from: the app's SecretStore (src/core/secrets; watch sits beside it, so only its shape here). */
export interface PasswordSource {
  get(name: string): Promise<string | null>;
}

/** The keychain entry of the SMTP password (longer than an API key name may be: never one). */
export const EMAIL_PASSWORD_SECRET = 'loupe:alert-email:smtp-password (the SMTP password of e-mailed alerts)';

export interface EmailMessage {
  subject: string;
  text: string;
}

/** One line of text a stranger or a user wrote, safe for a header: escaped controls, single spaces, bounded. */
export function oneLine(s: string, max = 200): string {
  const flat = visible(s.replace(/[\r\n\t\u2028\u2029]+/g, ' '))
    .replace(/\s+/g, ' ')
    .trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

/** What an e-mail says about one alert (its list's name given, as the inbox has it). */
export function alertMessage(a: AlertRow, listName: string): EmailMessage {
  const name = oneLine(listName, 80);
  const what =
    a.kind === 'spike'
      ? `a spike of ${a.items} new items`
      : `${a.items} new item${a.items === 1 ? '' : 's'} match${a.items === 1 ? 'es' : ''} the alert`;
  const when = new Date(a.at).toISOString().replace('T', ' ').slice(0, 16) + ' UTC';
  const items: AlertItem[] = a.itemList ?? [];
  const lines = [
    oneLine(a.summary, 400),
    '',
    `Watchlist: ${name} (id ${a.watchlistId})`,
    `Run: ${a.runId}, finished ${when}`,
    a.kind === 'spike' && a.expected !== null
      ? `New items: ${a.items}, where the list's history expects about ${Math.round(a.expected)}`
      : `Matched items: ${a.items}`,
  ];
  if (items.length > 0) {
    lines.push('', a.items > items.length ? `The first ${items.length}:` : 'The items:');
    for (const it of items) lines.push(`  • ${oneLine(it.text ?? '(no text)', 300)}  [id ${oneLine(it.id, 80)}]`);
  }
  lines.push(
    '',
    'Open them in Loupe: Watchlists → Alerts → Show the items.',
    '',
    '— Loupe (sent because this address is set for alerts in Settings → Alerts)',
  );
  return { subject: `Loupe · ${name}: ${what}`, text: lines.join('\n') + '\n' };
}

/** A cause in words from nodemailer's error (its code, the server's answer), the password never in it. */
export function emailCause(e: unknown, cfg: Pick<AlertEmail, 'host' | 'port'>, password?: string | null): string {
  const err = e as { code?: string; responseCode?: number; response?: string; message?: string };
  const where = `${cfg.host}:${cfg.port}`;
  const said = err.response ? ` (the server said: ${oneLine(err.response, 160)})` : '';
  let why: string;
  switch (err.code) {
    case 'EAUTH':
      why = `${where} refused the user name or password${said}; check them in Settings → Alerts`;
      break;
    case 'ENOAUTH':
      why = `${where} wants a user name and password; set them in Settings → Alerts`;
      break;
    case 'ETLS':
      why = `${where} could not set up an encrypted connection${said} (${oneLine(err.message ?? '', 160)}); check the security choice and the port`;
      break;
    case 'EENVELOPE':
      why = `${where} refused the sender or a recipient${said}`;
      break;
    case 'ETIMEDOUT':
      why = `${where} did not answer in time; check the server and the port`;
      break;
    case 'ECONNECTION':
    case 'ESOCKET':
    case 'EDNS':
      why = `${where} could not be reached (${oneLine(err.message ?? String(e), 160)}); check the server and the port`;
      break;
    default:
      why = `${where}: ${oneLine(err.message ?? String(e), 200)}${said}`;
  }
  if (password && password.length >= 3) why = why.split(password).join('[password]');
  return why;
}

export interface SendOptions {
  /** ms for connecting, the greeting and each answer; default 10 s / 10 s / 20 s */
  timeoutMs?: number;
}

/** Sends messages through one connection; the first failure throws (with `emailCause`'s words). */
export async function sendEmails(
  cfg: AlertEmail,
  password: string | null,
  messages: EmailMessage[],
  o: SendOptions = {},
): Promise<Array<string | null>> {
  if (cfg.user && !password)
    throw new Error(
      `no password is stored for ${oneLine(cfg.user, 80)} at ${cfg.host}; set it in Settings → Alerts (or: loupe alerts email --password-stdin)`,
    );
  const t = o.timeoutMs;
  // loaded when a message is sent: starting the app or the CLI never pays for it
  const { default: nodemailer } = await import('nodemailer');
  const transport = nodemailer.createTransport({
    host: cfg.host,
    port: cfg.port,
    secure: cfg.security === 'tls',
    requireTLS: cfg.security === 'starttls',
    ignoreTLS: cfg.security === 'none',
    auth: cfg.user ? { user: cfg.user, pass: password ?? '' } : undefined,
    connectionTimeout: t ?? 10_000,
    greetingTimeout: t ?? 10_000,
    socketTimeout: t ?? 20_000,
    disableFileAccess: true,
    disableUrlAccess: true,
    logger: false,
    debug: false,
  });
  const results: Array<string | null> = [];
  try {
    for (const m of messages) {
      try {
        const info = await transport.sendMail({ from: cfg.from, to: cfg.to, subject: m.subject, text: m.text });
        results.push(typeof info.messageId === 'string' ? info.messageId : null);
      } catch (e) {
        throw new Error(emailCause(e, cfg, password));
      }
    }
  } finally {
    transport.close();
  }
  return results;
}

export interface EmailDeps {
  settings(): { alertEmail: AlertEmail | null };
  secrets: PasswordSource;
  alerts: {
    emailDue(now: number, limit?: number): AlertRow[];
    claimEmail(alertId: string, now: number): boolean;
    emailDone(alertId: string, now: number, error: string | null): void;
  };
  /** the list's name now (the inbox's words) */
  listName(watchlistId: string): string;
  now(): number;
  timeoutMs?: number;
}

/** The password from the keychain; a keychain that cannot be read is a cause, said as such. */
async function password(d: EmailDeps, cfg: AlertEmail): Promise<string | null> {
  if (!cfg.user) return null;
  try {
    return await d.secrets.get(EMAIL_PASSWORD_SECRET);
  } catch (e) {
    throw new Error(
      `the SMTP password could not be read from the OS keychain (${oneLine(e instanceof Error ? e.message : String(e), 160)})`,
    );
  }
}

/**
 * Sends every alert due (pending, or failed on an earlier run), each claimed first so two processes
 * never send one alert twice; each ends `sent` or `failed` with its cause (kept on the alert and
 * retried on the next run). Returns the failures' causes (empty: all sent, or nothing due).
 */
export async function emailDueAlerts(d: EmailDeps): Promise<{ sent: number; failed: string[] }> {
  const cfg = d.settings().alertEmail;
  if (!cfg) return { sent: 0, failed: [] };
  const due = d.alerts.emailDue(d.now());
  if (due.length === 0) return { sent: 0, failed: [] };
  let pass: string | null;
  try {
    pass = await password(d, cfg);
  } catch (e) {
    pass = null;
    const why = e instanceof Error ? e.message : String(e);
    for (const a of due) if (d.alerts.claimEmail(a.alertId, d.now())) d.alerts.emailDone(a.alertId, d.now(), why);
    return { sent: 0, failed: [why] };
  }
  let sent = 0;
  const failed: string[] = [];
  for (const a of due) {
    if (!d.alerts.claimEmail(a.alertId, d.now())) continue;
    try {
      await sendEmails(cfg, pass, [alertMessage(a, d.listName(a.watchlistId))], { timeoutMs: d.timeoutMs });
      d.alerts.emailDone(a.alertId, d.now(), null);
      sent++;
    } catch (e) {
      const why = e instanceof Error ? e.message : String(e);
      d.alerts.emailDone(a.alertId, d.now(), why);
      failed.push(why);
    }
  }
  return { sent, failed };
}

/** "Send test e-mail": one message through the saved settings; the result in words either way. */
export async function sendTestEmail(
  d: Pick<EmailDeps, 'settings' | 'secrets' | 'now' | 'timeoutMs'>,
): Promise<{ ok: boolean; message: string }> {
  const cfg = d.settings().alertEmail;
  if (!cfg) return { ok: false, message: 'No SMTP server is set: fill in Settings → Alerts → E-mail and save first.' };
  try {
    const pass = await password(d as EmailDeps, cfg);
    const when = new Date(d.now()).toISOString().replace('T', ' ').slice(0, 16) + ' UTC';
    await sendEmails(
      cfg,
      pass,
      [
        {
          subject: 'Loupe · test e-mail',
          text: `This is a test from Loupe (${when}). Watchlist alerts will arrive at this address like this one.\n`,
        },
      ],
      { timeoutMs: d.timeoutMs },
    );
    return {
      ok: true,
      message: `Sent to ${cfg.to.join(', ')} through ${cfg.host}:${cfg.port}. If it does not arrive, look in the spam folder.`,
    };
  } catch (e) {
    return { ok: false, message: `The test e-mail was not sent: ${e instanceof Error ? e.message : String(e)}.` };
  }
}
