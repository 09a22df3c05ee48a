/**
 * A start refused for a reason the operator fixes (a bad setting, a data directory in use): the
 * message names the cause and what to do, and it is all that is reported, one line, no stack.
 */
export class StartError extends Error {
  override name = 'StartError';
}
