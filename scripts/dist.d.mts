export function targetsOf(argv: string[], host?: { platform: string; arch: string }): Array<{ platform: string; arch: string }>;
