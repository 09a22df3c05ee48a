import type { ExecutionResult } from 'graphql';

/** An execution's result with its JSON, made once for every live query that shares it. */
export interface SharedResult {
  result: ExecutionResult;
  /** `{data, errors?, extensions?}` as JSON: what a live query compares to tell a change. */
  json: string;
}

/**
 * The re-executions of one query (the same document, variables and caller) that live queries
 * share, so that a change costs one execution however many follow it. A live query made stale
 * by an event at `since` takes the result of an execution that started at or after `since` (it
 * saw that event's commit), and runs one only when there is none; one starts at most once per
 * `minIntervalMs`.
 */
export class SharedExecution {
  /** The live queries that share it. */
  users = 0;
  #latest: { startedAt: number; shared: Promise<SharedResult> } | undefined;
  /** Aborted once no live query shares it: what an execution still waits for is not needed. */
  readonly #abandoned = new AbortController();

  constructor(
    private readonly minIntervalMs: number,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** The result of an execution that started at or after `since`, running or done; if any. */
  covering(since: number): Promise<SharedResult> | undefined {
    const latest = this.#latest;
    return latest && latest.startedAt >= since ? latest.shared : undefined;
  }

  /** Milliseconds until another execution may start (0 or less: now). */
  wait(): number {
    return this.#latest ? this.#latest.startedAt + this.minIntervalMs - this.now() : 0;
  }

  /**
   * Starts an execution (`execute` does not throw: errors are a result) for all to share; its
   * signal is aborted when the last of them leaves.
   */
  run(execute: (signal: AbortSignal) => Promise<ExecutionResult>): Promise<SharedResult> {
    const startedAt = this.now();
    const shared = execute(this.#abandoned.signal).then((result) => ({
      result,
      json: resultJson(result),
    }));
    this.#latest = { startedAt, shared };
    return shared;
  }

  /** The last live query that shared it has left. */
  abandon(): void {
    this.#abandoned.abort();
  }
}

/** What a live query sends of a result, as JSON. */
export function resultJson({ data, errors, extensions }: ExecutionResult): string {
  return JSON.stringify({ data, ...(errors && { errors }), ...(extensions && { extensions }) });
}
