/**
 * The streams and environment a CLI run works with (process's, or a test's). Its own module so the
 * command modules main.ts registers can name it without importing main.ts (no import cycle).
 */
export interface Io {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream & { isTTY?: boolean };
  stdin: NodeJS.ReadableStream & { isTTY?: boolean };
  env: NodeJS.ProcessEnv;
  /**
   * SIGINT / SIGTERM and the process's exit (bin.ts passes the process): a run given them stops
   * its command through the command's cancel path on a signal (./interrupt.ts); without them
   * (tests in one process) nothing listens.
   */
  signals?: SignalSource;
}

export type StopSignal = 'SIGINT' | 'SIGTERM';

/** Where the signals come from (the process) and how the run ends at once. */
export interface SignalSource {
  on(signal: StopSignal, fn: () => void): unknown;
  off(signal: StopSignal, fn: () => void): unknown;
  /** ends the process now (process.exit) */
  exit(code: number): void;
}
