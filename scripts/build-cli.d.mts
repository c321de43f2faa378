export const CLI_EXTERNAL: string[];
export function buildCli(o?: { quiet?: boolean }): Promise<{ outDir: string; files: number; bytes: number; metafile: unknown }>;
export const CLI_PLUGINS: import('esbuild').Plugin[];
/** the core's worker threads: name → source file */
export const WORKERS: Record<string, string>;
