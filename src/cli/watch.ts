import type { Command } from 'commander';
import type { CliContext } from './context';
import type { Io } from './main';

/** `loupe watch …` — registered once the watchlist service exists (src/core/watch). */
export function registerWatchCommands(_program: Command, _io: Io, _context: () => CliContext, _opts: { confirm: (q: string) => Promise<boolean> }): void {}
