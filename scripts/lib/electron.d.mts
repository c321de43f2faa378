export interface Progress {
  percent?: number;
  transferred: number;
  total?: number;
}
export function platformPath(platform: string): string;
export function electronPackage(root: string): { dir: string; version: string; pkg: Record<string, unknown> };
export function fetcherNodeProblem(root: string, nodeVersion?: string): string | null;
export function installedElectron(root: string, platform?: string): string | null;
export function progressLine(version: string, target: string, p: Progress): string;
export function downloadFailure(e: unknown, version: string): string;
export function fetchElectron(o: {
  root: string;
  platform?: string;
  arch?: string;
  mirror?: string;
  cacheRoot?: string;
  checksums?: Record<string, string> | null;
  onProgress?: (p: Progress) => void;
  timeoutMs?: number;
}): Promise<string>;
export function sha256(buf: Uint8Array): string;
