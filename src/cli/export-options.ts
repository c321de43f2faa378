/**
 * `loupe export`'s own options (its query flags are query-flags.ts's): the one list. The command
 * registers exactly these (commands/export-file.ts, a record over these names) and the built entry
 * reads which of them let an export's workers start at the command line's beginning
 * (early-workers.ts), so an option added to the command is one the early start has been told about.
 * Data alone, with no import: the entry loads it before the rest of the command line.
 */
export interface ExportOptionDef {
  /** commander's flags: the names, and `<value>` when it takes one */
  flags: string;
  /**
   * Whether an export given this option may still have its workers started early: true only when
   * the option neither filters the rows nor changes how they are read (by rid). An export with an
   * option not `early` (or a query flag, or anything not listed) starts none early — the safe side:
   * the export starts its own, as before.
   */
  early: boolean;
}

export const EXPORT_OPTIONS = {
  format: { flags: '--format <f>', early: true },
  out: { flags: '-o, --out <file>', early: true },
  network: { flags: '--network <kind>', early: false },
  pseudonymise: { flags: '--pseudonymise', early: false },
  sort: { flags: '--sort <field:dir>', early: true },
  columns: { flags: '--columns <list>', early: true },
  bom: { flags: '--no-bom', early: true },
  history: { flags: '--no-history', early: true },
} as const satisfies Record<string, ExportOptionDef>;

export type ExportOptionName = keyof typeof EXPORT_OPTIONS;

/** the names in `flags` (`-o, --out <file>`: `-o`, `--out`) */
export function flagNames(flags: string): string[] {
  return flags.split(/[\s,|]+/).filter((w) => w.startsWith('-'));
}

/** whether an option of these flags takes a value */
export function takesValue(flags: string): boolean {
  return /[<[]/.test(flags);
}
