/**
 * The time as the services read it where a test must move it (receiver health counts hours of
 * failures): the system's in production, a fake one in tests (`ServiceOptions.clock`).
 */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };
