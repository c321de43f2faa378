export function iconSvg(): string;
export function rasterIcon(n: number): Buffer;
export function rasterBadge(n: number): Buffer;
export function encodePng(rgba: Buffer, n: number): Buffer;
export function encodeIco(pngs: Array<{ size: number; png: Buffer }>): Buffer;
export function encodeIcns(pngBySize: Map<number, Buffer>): Buffer;
export const ICNS_TYPES: Array<[string, number]>;
export const LINUX_SIZES: number[];
export const ICO_SIZES: number[];
