export const MAX_LINES: number;
export function listSources(dir: string): string[];
export function importsOf(fileName: string, text: string): Array<{ spec: string; typeOnly: boolean }>;
export function resolveRelative(fromFile: string, spec: string, exists?: (p: string) => boolean): string | null;
export type ImportGraph = Map<string, Array<{ to: string; typeOnly: boolean }>>;
export function buildGraph(files: string[], read?: (file: string) => string): ImportGraph;
export function cyclicComponents(graph: ImportGraph): string[][];
export function shortestCycle(graph: ImportGraph, comp: string[], from?: string): string[];
export function oversized(
  lineCounts: Map<string, number>,
  allowlist: Record<string, number>,
  max?: number,
): {
  problems: string[];
  allowed: Array<{ file: string; lines: number; ceiling: number }>;
  shrunk: Array<{ file: string; lines: number; ceiling: number }>;
  stale: string[];
};
