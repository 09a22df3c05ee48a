import type { Logger } from './logger.ts';

/**
 * What an app must undo when it stops, in reverse order of creation: the last thing set up
 * (which may use everything before it) is the first to go, and the database closes last.
 */
export class Disposables {
  readonly #stack: { name: string; dispose: () => unknown }[] = [];

  /** Registers the undoing of something just set up. */
  defer(name: string, dispose: () => unknown): void {
    this.#stack.push({ name, dispose });
  }

  /**
   * Undoes everything, last first. A step that fails is logged and the rest still run; the
   * first failure is then thrown.
   */
  async dispose(logger: Logger): Promise<void> {
    let failure: { err: unknown } | undefined;
    for (let step = this.#stack.pop(); step; step = this.#stack.pop()) {
      try {
        await step.dispose();
      } catch (err) {
        logger.error({ err, step: step.name }, 'shutdown step failed');
        failure ??= { err };
      }
    }
    if (failure) throw failure.err;
  }
}
