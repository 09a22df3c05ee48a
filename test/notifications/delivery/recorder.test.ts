import { describe, expect, it } from 'vitest';
import { createLogger } from '../../../src/logger.ts';
import { OutcomeRecorder } from '../../../src/notifications/delivery/recorder.ts';
import type { Outcome } from '../../../src/notifications/delivery/queue/types.ts';
import type pg from 'pg';
import { EventSignal } from '../../../src/events/outbox.ts';

/** A pool that keeps the outcome batches it is asked to write (and answers every query). */
function fakePool(): { pool: pg.Pool; batches: string[][] } {
  const batches: string[][] = [];
  const query = async (statement: unknown) => {
    if (typeof statement === 'object' && statement && 'name' in statement) {
      const { name, values } = statement as { name: string; values: unknown[] };
      if (name === 'clipgate_record_outcomes') batches.push(values[2] as string[]);
    }
    return { rows: [], rowCount: 0 };
  };
  return { pool: { query } as unknown as pg.Pool, batches };
}

const outcome = (id: string): Outcome => ({
  delivery: {
    id,
    attempt_count: 1,
    round_attempts: 0,
    kind: 'event',
    event_id: id,
    event_type: 'activity_created',
    account_id: '0b7c0000-0000-4000-8000-000000000000',
    client_id: 'client',
    url: 'https://hooks.example.com/',
  },
  startedAt: new Date(),
  result: {
    outcome: 'accepted',
    status: 200,
    error: null,
    errorMessage: null,
    durationMs: 3,
    responseSnippet: '',
  },
  next: { state: 'delivered' },
});

describe('the record stage', () => {
  it('writes outcomes one by one while they come slowly', async () => {
    const { pool, batches } = fakePool();
    const recorder = new OutcomeRecorder(
      pool,
      'instance',
      createLogger('silent'),
      new EventSignal(),
    );
    await recorder.record(outcome('1'));
    await recorder.record(outcome('2'));
    expect(batches).toEqual([['1'], ['2']]);
  });

  it('when busy, writes the outcomes of a burst in one statement, and resolves each once written', async () => {
    const { pool, batches } = fakePool();
    // Busy from the first outcome on (a rate of 10 a second).
    const recorder = new OutcomeRecorder(
      pool,
      'instance',
      createLogger('silent'),
      new EventSignal(),
      {
        ms: 10,
        busyPerSecond: 10,
      },
    );
    const written: string[] = [];
    const burst = ['1', '2', '3', '4', '5'].map((id) =>
      recorder.record(outcome(id)).then(() => written.push(id)),
    );
    await Promise.all(burst);
    expect(batches).toEqual([['1', '2', '3', '4', '5']]);
    expect(written).toEqual(['1', '2', '3', '4', '5']);
  });

  it('when busy, gathers outcomes that arrive within its window into one batch', async () => {
    const { pool, batches } = fakePool();
    const recorder = new OutcomeRecorder(
      pool,
      'instance',
      createLogger('silent'),
      new EventSignal(),
      {
        ms: 200,
        busyPerSecond: 10,
      },
    );
    const first = recorder.record(outcome('1'));
    await new Promise((resolve) => setTimeout(resolve, 20));
    const second = recorder.record(outcome('2'));
    await Promise.all([first, second]);
    expect(batches).toEqual([['1', '2']]);
    // Later outcomes go in a statement of their own.
    await recorder.record(outcome('3'));
    expect(batches).toEqual([['1', '2'], ['3']]);
    await recorder.settled();
  });
});
