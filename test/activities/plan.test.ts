import { describe, expect, it } from 'vitest';
import {
  MAX_AHEAD_MS,
  MAX_DURATION_MS,
  planChange,
  type ActivityChange,
  type StoredActivity,
} from '../../src/activities/plan.ts';

const accessoryId = '00000000-0000-4000-8000-000000000001';
const at = (iso: string) => new Date(iso);
const now = at('2026-11-23T12:00:00Z');

const running: StoredActivity = {
  accessoryId,
  activityId: '20261123T100000Z',
  createdAt: at('2026-11-23T10:00:00.500Z'),
  updatedAt: at('2026-11-23T10:00:00.500Z'),
  sequence: 1,
  startTime: at('2026-11-23T09:59:58Z'),
  endTime: null,
  playbackDuration: null,
  relevanceLevel: 1,
  motionZones: ['z1'],
  objectLocations: [3],
};

describe('planChange (the write path without a database)', () => {
  it('creates the first activity with the second of createdAt as its id', () => {
    const plan = planChange(accessoryId, null, { kind: 'create', input: { createdAt: now } }, now);
    expect('rows' in plan && plan.rows.map((r) => r.activityId)).toEqual(['20261123T120000Z']);
  });

  it('finishes a running previous activity at the new one`s createdAt, events in order', () => {
    const createdAt = at('2026-11-23T10:05:00Z');
    const plan = planChange(accessoryId, running, { kind: 'create', input: { createdAt } }, now);
    if (!('rows' in plan)) throw new Error('expected a plan');
    expect(plan.events.map((e) => [e.eventType, e.activity.activityId])).toEqual([
      ['activity_finished', '20261123T100000Z'],
      ['activity_created', '20261123T100500Z'],
    ]);
    expect(plan.rows[0]).toMatchObject({ endTime: createdAt, playbackDuration: 302_000 });
  });

  it('takes the next free second when createdAt falls in the newest id`s second', () => {
    const createdAt = at('2026-11-23T10:00:00.900Z');
    const plan = planChange(accessoryId, running, { kind: 'create', input: { createdAt } }, now);
    expect('result' in plan && plan.result.activityId).toBe('20261123T100001Z');
  });

  it('refuses a createdAt before the newest activity`s (409)', () => {
    const createdAt = at('2026-11-23T10:00:00.100Z');
    expect(() =>
      planChange(accessoryId, running, { kind: 'create', input: { createdAt } }, now),
    ).toThrow(expect.objectContaining({ code: 'CONFLICT' }));
  });

  it('updates only the given fields and recomputes the duration of a finished activity', () => {
    const done = { ...running, endTime: at('2026-11-23T10:01:00Z'), playbackDuration: 62_000 };
    const plan = planChange(
      accessoryId,
      done,
      {
        kind: 'update',
        activityId: done.activityId,
        input: { startTime: at('2026-11-23T10:00:30Z') },
      },
      now,
    );
    expect('result' in plan && plan.result).toMatchObject({
      playbackDuration: 30_000,
      relevanceLevel: 1,
      motionZones: ['z1'],
      updatedAt: now,
      sequence: 2,
    });
  });

  it('answers 404 for a newer or unknown id, and leaves an older one to the database', () => {
    const newer = { kind: 'finish', activityId: '20261123T110000Z', endTime: now } as const;
    expect(() => planChange(accessoryId, running, newer, now)).toThrow(
      expect.objectContaining({ code: 'NOT_FOUND' }),
    );
    expect(() => planChange(accessoryId, null, newer, now)).toThrow(
      expect.objectContaining({ code: 'NOT_FOUND' }),
    );
    const older = { kind: 'finish', activityId: '20261123T090000Z', endTime: now } as const;
    expect(planChange(accessoryId, running, older, now)).toEqual({
      olderThan: running.activityId,
      activityId: older.activityId,
    });
  });

  it('refuses finishing twice (409) and an endTime before the startTime (400)', () => {
    const done = { ...running, endTime: at('2026-11-23T10:01:00Z'), playbackDuration: 62_000 };
    const finish = { kind: 'finish', activityId: running.activityId, endTime: now } as const;
    expect(() => planChange(accessoryId, done, finish, now)).toThrow(
      expect.objectContaining({ code: 'CONFLICT' }),
    );
    const early = { ...finish, endTime: at('2026-11-23T09:00:00Z') };
    expect(() => planChange(accessoryId, running, early, now)).toThrow(
      expect.objectContaining({ code: 'INVALID_ARGUMENT', details: { field: 'endTime' } }),
    );
  });

  it('takes instants from the Unix epoch to a day past the clock, each refusal naming its field', () => {
    const refused = (change: ActivityChange, field: string) =>
      expect(() => planChange(accessoryId, running, change, now)).toThrow(
        expect.objectContaining({ code: 'INVALID_ARGUMENT', details: { field } }),
      );
    const later = (ms: number) => new Date(now.getTime() + ms);
    refused({ kind: 'create', input: { createdAt: at('1969-12-31T23:59:59.999Z') } }, 'createdAt');
    refused({ kind: 'create', input: { createdAt: later(MAX_AHEAD_MS + 1) } }, 'createdAt');
    refused({ kind: 'create', input: { createdAt: at('0000-01-01T00:00:00Z') } }, 'createdAt');
    refused(
      { kind: 'create', input: { createdAt: later(1), startTime: at('1969-12-31T00:00:00Z') } },
      'startTime',
    );
    refused(
      {
        kind: 'update',
        activityId: running.activityId,
        input: { startTime: later(MAX_AHEAD_MS + 1) },
      },
      'startTime',
    );
    refused(
      { kind: 'finish', activityId: running.activityId, endTime: later(MAX_AHEAD_MS + 1) },
      'endTime',
    );
    const ahead = planChange(
      accessoryId,
      null,
      { kind: 'create', input: { createdAt: later(MAX_AHEAD_MS) } },
      now,
    );
    expect('result' in ahead && ahead.result.createdAt).toEqual(later(MAX_AHEAD_MS));
  });

  it('keeps every duration within what playbackDuration holds', () => {
    const old = { ...running, startTime: at('2026-10-01T00:00:00Z') };
    const tooLate = new Date(old.startTime.getTime() + MAX_DURATION_MS + 1);
    expect(() =>
      planChange(
        accessoryId,
        old,
        { kind: 'finish', activityId: old.activityId, endTime: tooLate },
        now,
      ),
    ).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT', details: { field: 'endTime' } }));
    const done = { ...running, endTime: now, playbackDuration: 1 };
    expect(() =>
      planChange(
        accessoryId,
        done,
        {
          kind: 'update',
          activityId: done.activityId,
          input: { startTime: at('2026-10-01T00:00:00Z') },
        },
        now,
      ),
    ).toThrow(
      expect.objectContaining({ code: 'INVALID_ARGUMENT', details: { field: 'startTime' } }),
    );
    // A new activity long after one left running finishes it as long as an activity may last.
    const plan = planChange(
      accessoryId,
      { ...old, activityId: '20261001T000000Z' },
      { kind: 'create', input: { createdAt: now } },
      now,
    );
    if (!('rows' in plan)) throw new Error('expected a plan');
    expect(plan.rows[0]).toMatchObject({
      playbackDuration: MAX_DURATION_MS,
      endTime: new Date(old.startTime.getTime() + MAX_DURATION_MS),
    });
  });
});
