/**
 * A refused archive operation. Its kind is the error model's (src/shared/errors.ts): most are a
 * caller's mistake (`validation`: an empty tag, a label without its field), a missing item or
 * result set is `not_found`, and an impossible state is `internal` (a bug: its stack is logged).
 */
import { LoupeError, type ErrorKind } from '../../shared/errors';

export class ArchiveError extends LoupeError {
  constructor(message: string, kind: ErrorKind = 'validation') {
    super(kind, message);
    this.name = 'ArchiveError';
  }
}
