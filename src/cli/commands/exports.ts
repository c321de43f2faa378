/** `loupe columns` (`loupe export` and `loupe library`: ./export-file.ts, ./library.ts). */
import type { Command } from 'commander';
import type { Io } from '../io';

export function registerColumnsCommand(program: Command, io: Io): void {
  program
    .command('columns')
    .description('the stable list of CSV export columns')
    .action(async () => {
      // a constant of the export format (src/shared), read without opening the data folder (the
      // contract's export.columns gives the same list, but composing the app would open the archive)
      const { CSV_COLUMNS } = await import('../../shared/export-columns');
      io.stdout.write(CSV_COLUMNS.join('\n') + '\n');
    });
}
