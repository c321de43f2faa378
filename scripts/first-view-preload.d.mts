export const FIRST_VIEWS: string[];
export function firstViewFiles(
  bundle: Record<string, { type: string; fileName: string; isEntry?: boolean; facadeModuleId?: string | null; imports?: string[] }>,
  views?: string[],
): string[];
export function firstViewPreload(views?: string[]): import('vite').Plugin;
