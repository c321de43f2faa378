export const NATIVE_DIR: string;
export function bindingName(abi: string | number): string;
export function targetFolder(root: string, platform: string, arch: string): string;
export function electronAbi(root: string, version: string): string;
export function existingBinding(root: string, t: { abi: string; platform: string; arch: string }): string | null;
export interface BuildContext {
  stageDir: string;
  electronVersion: string;
  abi: string;
  platform: string;
  arch: string;
  log(m: string): void;
}
export interface Strategy {
  name: string;
  build(ctx: BuildContext): void;
}
export function prebuilt(root: string): Strategy;
export function fromSource(root: string): Strategy;
export function ensureElectronNative(o: {
  root: string;
  electronVersion: string;
  abi: string;
  platform?: string;
  arch?: string;
  strategies?: Strategy[];
  force?: boolean;
  log?: (m: string) => void;
}): { path: string; built: boolean; via: string | null };
export function verifyInElectron(electronBinary: string, bindingPath: string): string | null;
