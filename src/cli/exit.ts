/** An exit with a code from the table in docs/cli.md and one sentence (no stack). */
export class ExitError extends Error {
  constructor(
    readonly exitCode: number,
    message: string,
  ) {
    super(message);
  }
}
