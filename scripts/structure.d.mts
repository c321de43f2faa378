export function listSources(dir: string): string[];
export function importsOf(fileName: string, text: string): Array<{ spec: string; typeOnly: boolean }>;
export function resolveRelative(fromFile: string, spec: string, exists?: (p: string) => boolean): string | null;
export type ImportGraph = Map<string, Array<{ to: string; typeOnly: boolean }>>;
export function buildGraph(files: string[], read?: (file: string) => string): ImportGraph;
export function cyclicComponents(graph: ImportGraph): string[][];
export function shortestCycle(graph: ImportGraph, comp: string[], from?: string): string[];
