import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EventSignal, storedEvents, type RecordedRow } from '../../../src/events/outbox.ts';
import type { NewEvent } from '../../../src/events/types.ts';
import { createLogger } from '../../../src/logger.ts';
import { Wakeups } from '../../../src/notifications/delivery/wakeups.ts';
import { openDatabase, type Database } from '../../../src/storage/database.ts';
import { migratedImage } from '../../helpers/app.ts';

const A = 'http://127.0.0.1:8001';
const B = 'http://127.0.0.1:8002';
const event: NewEvent = {
  accountId: '00000000-0000-4000-8000-000000000001',
  accessoryId: null,
  eventType: 'account_deleted',
  eventData: {},
};
let ids = 0;
/** Committed events as the outbox statement answers them: with the origins queued for. */
const committed = (...origins: (string[] | null)[]) =>
  storedEvents(
    origins.map(() => event),
    origins.map((o): RecordedRow => ({
      event_id: String(++ids),
      event_occurred_at: new Date(),
      event_origins: o,
      previous_account_event_id: null,
      previous_accessory_event_id: null,
    })),
  );

/** Whether a sleep of the loop ends within `ms`: woken, rather than timed out. */
async function woken(wakeups: Wakeups, act: () => void, ms = 200): Promise<boolean> {
  wakeups.clear();
  const started = performance.now();
  const sleeping = wakeups.sleep(ms);
  act();
  await sleeping;
  return performance.now() - started < ms / 2;
}

describe('dispatcher wake-ups on local commits', () => {
  let db: Database;
  beforeAll(async () => {
    db = await openDatabase({
      databaseUrl: undefined,
      embeddedDir: 'memory://',
      embeddedImage: await migratedImage(),
      logger: createLogger('silent'),
    });
  });
  afterAll(() => db.close());

  it('wake the loop for a commit with deliveries to an origin it has room for, only', async () => {
    const signal = new EventSignal();
    const asked: string[][] = [];
    const saturated = new Set([A]);
    const wakeups = new Wakeups({
      db,
      signal,
      queued: (origins) => {
        asked.push([...origins].sort());
        return [...origins].some((o) => !saturated.has(o));
      },
      instanceId: 'test',
      logger: createLogger('silent'),
    });
    try {
      // No deliveries queued: nothing to ask.
      expect(await woken(wakeups, () => signal.committed(committed(null)))).toBe(false);
      expect(asked).toEqual([]);
      // All for a saturated origin: its slots call for the claim when they free.
      expect(await woken(wakeups, () => signal.committed(committed([A], [A])))).toBe(false);
      expect(await woken(wakeups, () => signal.committed(committed([A], [A, B])))).toBe(true);
      expect(asked).toEqual([[A], [A, B]]);
    } finally {
      await wakeups.close();
    }
  });
});
