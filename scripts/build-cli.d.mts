export const CLI_EXTERNAL: string[];
export function buildCli(o?: { quiet?: boolean }): Promise<{ outDir: string; files: number; bytes: number; metafile: unknown }>;
