/**
 * E-mail delivery of alerts (issue 27 #1): the SMTP settings' shape and rules, shared by the
 * contract, the settings file, the Settings view and the CLI. The password is not here: it lives
 * in the OS keychain (src/core/watch/alert-email.ts), never in settings.json or a log.
 *
 * Pure (no Node): the renderer shows the same words.
 */
import { z } from 'zod';

export const EMAIL_SECURITY = ['starttls', 'tls', 'none'] as const;
export type EmailSecurity = (typeof EMAIL_SECURITY)[number];

export const EMAIL_SECURITY_WORDS: Record<EmailSecurity, string> = {
  starttls: 'STARTTLS (usually port 587)',
  tls: 'TLS from the start (usually port 465)',
  none: 'None — this computer only (localhost)',
};

/** localhost, 127.0.0.0/8 or ::1: the only hosts an unencrypted connection may go to. */
export function isLoopbackHost(host: string): boolean {
  const h = host
    .trim()
    .toLowerCase()
    .replace(/^\[|\]$/g, '');
  return h === 'localhost' || h === '::1' || /^127(\.\d{1,3}){3}$/.test(h);
}

// a host name or an IP address: no spaces, no control characters, no scheme
const HOST = /^(?:\[[0-9a-f:.]+\]|[0-9a-f:.]*:[0-9a-f:.]*|[0-9a-z](?:[0-9a-z.\-_]*[0-9a-z])?)$/i;
const address = z.email('An e-mail address looks like name@example.org.');

export const alertEmailSchema = z
  .object({
    host: z
      .string()
      .trim()
      .min(1, 'Name the SMTP server.')
      .max(253)
      .regex(HOST, 'The SMTP server is a host name or an address, like smtp.example.org.')
      .transform((h) => h.replace(/^\[(.*)\]$/, '$1')),
    port: z.number().int().min(1).max(65_535),
    security: z.enum(EMAIL_SECURITY),
    /** the SMTP user name; null: the server takes mail without signing in */
    user: z.string().trim().min(1).max(320).nullable(),
    from: address,
    to: z.array(address).min(1, 'Name at least one recipient.').max(20),
  })
  .refine((e) => e.security !== 'none' || isLoopbackHost(e.host), {
    message: 'Without encryption, mail may go only to a server on this computer (localhost): choose STARTTLS or TLS for another host.',
    path: ['security'],
  });
export type AlertEmail = z.infer<typeof alertEmailSchema>;

/** The first problem of a settings draft in words, or null when it can be saved. */
export function alertEmailProblem(v: unknown): string | null {
  const r = alertEmailSchema.safeParse(v);
  if (r.success) return null;
  const i = r.error.issues[0];
  const field = String(i.path[0] ?? '');
  const words: Record<string, string> = { host: 'SMTP server', port: 'Port', user: 'User name', from: 'From', to: 'To' };
  return words[field] && !i.message.startsWith(words[field]) ? `${words[field]}: ${i.message}` : i.message;
}

/** `settings.emailPassword`: store (a string), remove (null) or only ask whether one is stored (absent). */
export const emailPasswordInput = z.object({ password: z.string().min(1).max(1024).nullable().optional() });

export interface EmailPasswordState {
  stored: boolean;
  /** where it is kept ('keyring', 'safeStorage', 'memory', 'unavailable') */
  backend: string;
}

/** `settings.testEmail`: one message through the saved settings, and what came of it in words. */
export interface EmailTestResult {
  ok: boolean;
  message: string;
}
