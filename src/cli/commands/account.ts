/** `loupe key …` (the core's side: src/core/methods/account.ts). */
import type { Command } from 'commander';
import type { CliContext } from '../context';
import type { Io } from '../io';
import { UsageError } from '../context';
import { readStdin } from './common';

export function registerKeyCommands(program: Command, io: Io, context: () => CliContext): void {
  // ───────── keys ─────────
  const key = program
    .command('key')
    .description(
      'API keys in the OS keychain (the key is read from stdin, never an argument); every stored key is in the pool work is spread over',
    );
  key
    .command('add')
    .alias('set')
    .argument('<name>', 'a name for the key (up to 64 characters)')
    .option('--no-activate', 'store it retiring: out of use until `loupe key use NAME`')
    .description('store a key read from stdin, e.g.  loupe key add work < key.txt')
    .action(async (name: string, o: { activate: boolean }) => {
      if (io.stdin.isTTY) io.stderr.write('Paste the key, then press Enter and Ctrl-D:\n');
      const value = await readStdin(io);
      if (!value) throw new UsageError('No key on stdin.');
      // the contract's keys.add (without the desktop's "used from the next start" on the sandbox:
      // the CLI uses a key whenever a base URL is given — docs/doors.md)
      const r = await context().call('keys.add', { name, key: value, activate: o.activate });
      if (r.warning) io.stderr.write(`Warning: ${r.warning}\n`);
      io.stderr.write(`Stored key "${r.name}" in ${r.backend}.\n`);
    });
  key
    .command('list')
    .description('the stored keys by name (never their values), which are in use, retiring or refused')
    .option('--json', 'JSON output')
    .action(async (o: { json?: boolean }) => {
      // the contract's keys.list: each key also carries its last use from the ledger (lastUsedAt)
      const ks = await context().call('keys.list', {});
      if (o.json) return void io.stdout.write(JSON.stringify(ks) + '\n');
      if (ks.length === 0) io.stderr.write('No keys stored. Add one with: loupe key set <name> < keyfile\n');
      if (ks.length === 0) return;
      io.stderr.write('  (* in use; work is spread over every key in use)\n');
      for (const k of ks) {
        const state = k.refused
          ? `, refused by the service: ${k.refused} — replace it with \`loupe key add ${k.name}\``
          : k.retiring
            ? ', retiring'
            : '';
        io.stdout.write(
          `${k.active ? '*' : ' '} ${k.name}  (${k.mode}${k.looksValid ? '' : ', does not look like a service key'}${state})\n`,
        );
      }
    });
  key
    .command('use')
    .argument('<name>')
    .description('put a key (back) into use')
    .action(async (name: string) => {
      await context().call('keys.use', { name });
      io.stderr.write(`Key "${name}" is in use.\n`);
    });
  key
    .command('retire')
    .argument('<name>')
    .description(
      'rotation: no new work goes to the key while another can take it (then confirm the new key is used, and revoke this one in the dashboard)',
    )
    .action(async (name: string) => {
      await context().call('keys.retire', { name });
      io.stderr.write(`Key "${name}" is retiring: new work goes to the other keys.\n`);
    });
  key
    .command('remove')
    .argument('<name>')
    .description('delete a stored key from the OS keychain (the key itself stays valid until you revoke it in the dashboard)')
    .action(async (name: string) => {
      await context().call('keys.remove', { name });
      io.stderr.write(`Removed key "${name}".\n`);
    });
}
