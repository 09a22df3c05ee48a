import { describe, expect, it } from 'vitest';
import { parseFilter } from '../../src/filter/index.ts';
import { eventPasses, filterSubject } from '../../src/events/filter.ts';
import type { NewEvent } from '../../src/events/types.ts';
import type { ZoneIndex } from '../../src/zones/membership.ts';

const accessoryId = '0b8e6a3c-1f2d-4c5e-8a7b-9c0d1e2f3a4b';
const saved = new Date('2026-11-21T12:00:00.000Z');
const zones: ZoneIndex = { lastModified: saved, cells: new Map([['z1', [0, 1]]]) };

const activity = (fields: Record<string, unknown>): NewEvent => ({
  accountId: 'account',
  accessoryId,
  eventType: 'activity_updated',
  eventData: {
    activityId: '20261121T110000Z',
    accessoryId,
    startTime: '2026-11-21T11:00:00.000Z',
    endTime: null,
    playbackDuration: null,
    relevanceLevel: 1,
    inProgress: true,
    motionZones: [],
    objectLocations: [],
    sequence: 2,
    occurredAt: '2026-11-21T12:30:00.000Z',
    ...fields,
  },
});
const motion = (motionZones: string[]): NewEvent => ({
  accountId: 'account',
  accessoryId,
  eventType: 'motion_started',
  eventData: { accessoryId, motionZones, timestamp: '2026-11-21T12:30:00.000Z' },
});
const passes = (filter: string, event: NewEvent) => eventPasses(parseFilter(filter), event, zones);

describe('event filters', () => {
  it('test an activity event as its activity, zones by the zones-and-time rule', () => {
    expect(filterSubject(activity({}))).toMatchObject({
      activityId: '20261121T110000Z',
      startTime: new Date('2026-11-21T11:00:00.000Z'),
      relevanceLevel: 1,
    });
    expect(passes('relevanceLevel = 1 AND attribute_not_exists(endTime)', activity({}))).toBe(true);
    expect(passes(`accessoryId = "${accessoryId.toUpperCase()}"`, activity({}))).toBe(true);
    // Started before the zones were saved: object locations in the zone's cells decide.
    expect(passes('contains(motionZones, "z1")', activity({ objectLocations: [1] }))).toBe(true);
    expect(passes('contains(motionZones, "z1")', activity({ motionZones: ['z1'] }))).toBe(false);
    // Started after: motionZones decide.
    const later = { startTime: '2026-11-21T12:10:00.000Z' };
    expect(passes('contains(motionZones, "z1")', activity({ ...later, motionZones: ['z1'] }))).toBe(
      true,
    );
    expect(
      passes('contains(motionZones, "z1")', activity({ ...later, objectLocations: [1] })),
    ).toBe(false);
  });

  it('test a motion event by its accessoryId and exact motionZones, nothing else', () => {
    expect(passes('contains(motionZones, "z1")', motion(['z1']))).toBe(true);
    expect(passes('contains(motionZones, "z1")', motion(['z2']))).toBe(false);
    expect(passes('relevanceLevel >= 0', motion(['z1']))).toBe(false);
    expect(passes('NOT relevanceLevel >= 0', motion(['z1']))).toBe(true);
    expect(passes('attribute_not_exists(activityId)', motion([]))).toBe(true);
    expect(passes(`accessoryId <> "${accessoryId}"`, motion(['z1']))).toBe(false);
  });

  it('let every other event pass', () => {
    const deleted: NewEvent = {
      accountId: 'account',
      accessoryId: null,
      eventType: 'account_deleted',
      eventData: {},
    };
    expect(filterSubject(deleted)).toBeNull();
    expect(passes('relevanceLevel > 99', deleted)).toBe(true);
    const zonesSaved: NewEvent = { ...deleted, accessoryId, eventType: 'zones_saved' };
    expect(passes('relevanceLevel > 99', zonesSaved)).toBe(true);
  });
});
