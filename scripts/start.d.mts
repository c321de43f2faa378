export function electronBinary(o?: {
  root?: string;
  web?: boolean;
  nodeVersion?: string;
  say?: (m: string) => void;
  mirror?: string;
  cacheRoot?: string;
  checksums?: Record<string, string> | null;
  timeoutMs?: number;
  onProgress?: (p: { percent?: number; transferred: number; total?: number }) => void;
}): Promise<string | null>;
export function electronNative(bin: string): boolean;
