export const MAX_FUNCTION_LINES: number;
export interface FunctionSpan {
  name: string;
  lines: number;
  line: number;
}
export function functionsOf(fileName: string, text: string): FunctionSpan[];
export function longFunctions(
  byFile: Map<string, FunctionSpan[]>,
  allowlist: Record<string, number>,
  max?: number,
): {
  problems: string[];
  allowed: Array<{ key: string; lines: number; ceiling: number }>;
  shrunk: Array<{ key: string; lines: number; ceiling: number }>;
  stale: string[];
};
export function lowered(allowlist: Record<string, number>, byFile: Map<string, FunctionSpan[]>, max?: number): Record<string, number>;
