/**
 * The streams and environment a CLI run works with (process's, or a test's). Its own module so the
 * command modules main.ts registers can name it without importing main.ts (no import cycle).
 */
export interface Io {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream & { isTTY?: boolean };
  stdin: NodeJS.ReadableStream & { isTTY?: boolean };
  env: NodeJS.ProcessEnv;
}
