import { describe, expect, it } from 'vitest';
import { ActivityOrderTracker } from '../../src/notifications/receiver.ts';

const accessoryId = '0b8e6a3c-1f2d-4c5e-8a7b-9c0d1e2f3a4b';
const note = (eventType: string, activityId: string, sequence: number) => ({
  accountId: 'a',
  eventType,
  eventData: { accessoryId, activityId, sequence, occurredAt: new Date(sequence).toISOString() },
});

describe('ActivityOrderTracker', () => {
  it('accepts each activity’s changes in order and drops older and repeated ones', () => {
    const tracker = new ActivityOrderTracker();
    expect(tracker.accept(note('activity_created', 'A', 1))).toBe(true);
    expect(tracker.accept(note('activity_updated', 'A', 3))).toBe(true);
    expect(tracker.accept(note('activity_updated', 'A', 2))).toBe(false); // overtaken
    expect(tracker.accept(note('activity_updated', 'A', 3))).toBe(false); // redelivered
    expect(tracker.accept(note('activity_finished', 'A', 4))).toBe(true);
    expect(tracker.accept(note('activity_created', 'A', 1))).toBe(false);
    // Another activity, and another type with the newest sequence, are their own.
    expect(tracker.accept(note('activity_updated', 'B', 2))).toBe(true);
    expect(tracker.accept(note('activity_media_ready', 'A', 4))).toBe(true);
  });

  it('accepts what carries no activity sequence', () => {
    const tracker = new ActivityOrderTracker();
    for (const body of [
      { eventType: 'motion_started', eventData: { accessoryId, motionZones: [], timestamp: '' } },
      { eventType: 'account_deleted', eventData: {} },
      { eventType: 'test_notification', eventData: {} },
      null,
      'text',
    ]) {
      expect(tracker.accept(body)).toBe(true);
      expect(tracker.accept(body)).toBe(true);
    }
  });

  it('forgets the least recently notified activity beyond its bound', () => {
    const tracker = new ActivityOrderTracker({ maxActivities: 2 });
    tracker.accept(note('activity_updated', 'A', 5));
    tracker.accept(note('activity_updated', 'B', 5));
    tracker.accept(note('activity_updated', 'A', 6)); // A is now the most recent
    tracker.accept(note('activity_updated', 'C', 5)); // B is forgotten
    expect(tracker.accept(note('activity_updated', 'A', 6))).toBe(false);
    expect(tracker.accept(note('activity_updated', 'B', 1))).toBe(true);
  });
});
