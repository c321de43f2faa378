/**
 * `loupe alerts …`: where a watchlist run's alerts are e-mailed (issue 27 #1) — the same settings
 * and keychain entry as Settings → Alerts in the app (the contract's `settings.update { alertEmail }`,
 * `settings.emailPassword`, `settings.testEmail`). The password is read from stdin, never an
 * argument (an argument shows in the process list and the shell's history).
 */
import type { Command } from 'commander';
import { alertEmailProblem, EMAIL_SECURITY, type AlertEmail } from '../../shared/alert-email';
import { LoupeError } from '../../shared/errors';
import type { CliContext } from '../context';
import { UsageError } from '../context';
import type { Io } from '../io';
import { collect, readStdin } from './common';

interface EmailFlags {
  host?: string;
  port?: string;
  security?: string;
  user?: string | false;
  from?: string;
  to?: string[];
  passwordStdin?: boolean;
  off?: boolean;
  json?: boolean;
}

const DEFAULT_PORT: Record<string, number> = { starttls: 587, tls: 465, none: 25 };

/** The settings after the flags: each flag changes the field it names, the rest stays. */
export function emailFromFlags(now: AlertEmail | null, o: EmailFlags): unknown {
  const security = o.security ?? now?.security ?? 'starttls';
  const port = o.port !== undefined ? Number(o.port) : (now?.port ?? DEFAULT_PORT[security] ?? 587);
  return {
    host: o.host ?? now?.host,
    port,
    security,
    user: o.user === false ? null : (o.user ?? now?.user ?? null),
    from: o.from ?? now?.from,
    to: o.to?.length
      ? o.to
          .flatMap((t) => t.split(','))
          .map((t) => t.trim())
          .filter(Boolean)
      : now?.to,
  };
}

function describe(e: AlertEmail | null, stored: boolean): string {
  if (!e)
    return 'Alerts are not e-mailed (no SMTP server set). Set one with: loupe alerts email --host smtp.example.org --user me --from me@example.org --to team@example.org --password-stdin < password.txt\n';
  return (
    [
      `SMTP server: ${e.host}:${e.port} (${e.security === 'none' ? 'no encryption, this computer only' : e.security === 'tls' ? 'TLS' : 'STARTTLS'})`,
      `User: ${e.user ?? '(none: the server takes mail without signing in)'}${e.user ? (stored ? ' · password in the OS keychain' : ' · NO PASSWORD STORED: add it with --password-stdin') : ''}`,
      `From: ${e.from}`,
      `To: ${e.to.join(', ')}`,
    ].join('\n') + '\n'
  );
}

export function registerAlertCommands(program: Command, io: Io, context: () => CliContext): void {
  const alerts = program.command('alerts').description('where watchlist alerts go besides the inbox: e-mail through an SMTP server');
  alerts
    .command('email')
    .description(
      'show or set the SMTP server alerts are e-mailed through; each flag changes what it names (the password from stdin with --password-stdin)',
    )
    .option('--host <host>', 'the SMTP server, e.g. smtp.example.org')
    .option('--port <n>', 'its port (default: 587 for starttls, 465 for tls)')
    .option('--security <mode>', `${EMAIL_SECURITY.join(' | ')} (none only for a server on this computer)`)
    .option('--user <name>', 'the SMTP user name')
    .option('--no-user', 'the server takes mail without signing in')
    .option('--from <address>', 'the sender address')
    .option('--to <address>', 'a recipient (repeat, or separate with commas)', collect)
    .option('--password-stdin', 'read the SMTP password from stdin and keep it in the OS keychain')
    .option('--off', 'stop e-mailing alerts (the settings and the stored password are removed)')
    .option('--json', 'JSON output')
    .action(async (o: EmailFlags) => {
      const ctx = context();
      if (o.off) {
        await ctx.call('settings.update', { alertEmail: null });
        try {
          await ctx.call('settings.emailPassword', { password: null });
        } catch (e) {
          io.stderr.write(`The SMTP password could not be removed from the OS keychain: ${e instanceof Error ? e.message : String(e)}\n`);
        }
        io.stderr.write('Alerts are no longer e-mailed; the SMTP settings are removed.\n');
        return;
      }
      const changing =
        o.host !== undefined ||
        o.port !== undefined ||
        o.security !== undefined ||
        o.user !== undefined ||
        o.from !== undefined ||
        (o.to?.length ?? 0) > 0;
      let current = (await ctx.call('settings.get', {})).alertEmail;
      if (changing) {
        const next = emailFromFlags(current, o);
        const problem = alertEmailProblem(next);
        const missing = !current && (o.host === undefined || o.from === undefined || !o.to?.length);
        if (problem) throw new UsageError(`${problem}${missing ? ' (a first setting needs --host, --from and --to)' : ''}`);
        current = (await ctx.call('settings.update', { alertEmail: next as AlertEmail })).alertEmail;
      }
      if (o.passwordStdin) {
        if (io.stdin.isTTY) io.stderr.write('Type the SMTP password, then press Enter and Ctrl-D:\n');
        const password = await readStdin(io);
        if (!password) throw new UsageError('No password on stdin.');
        const r = await ctx.call('settings.emailPassword', { password });
        io.stderr.write(`Stored the SMTP password in ${r.backend}.\n`);
      }
      const { stored } = await ctx.call('settings.emailPassword', {});
      if (o.json) return void io.stdout.write(JSON.stringify({ alertEmail: current, passwordStored: stored }) + '\n');
      io.stdout.write(describe(current, stored));
      if (changing) io.stderr.write('Saved. Try it with: loupe alerts test-email\n');
    });
  alerts
    .command('test-email')
    .description('send one test message through the saved SMTP settings and say what came of it')
    .action(async () => {
      const r = await context().call('settings.testEmail', {});
      if (!r.ok) throw new LoupeError('network', r.message);
      io.stdout.write(`${r.message}\n`);
    });
}
