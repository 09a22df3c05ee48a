import { describe, expect, it } from 'vitest';
import { AppError, notFound } from '../src/errors.ts';

describe('AppError', () => {
  it('keeps the stack of an INTERNAL error, the one kind that is logged', () => {
    expect(new AppError('INTERNAL', 'boom').stack).toMatch(/\n\s+at /);
  });

  it('captures no stack for an error answered to the client, and leaves the limit as it was', () => {
    const limit = Error.stackTraceLimit;
    expect(new AppError('RATE_LIMITED', 'slow down').stack).not.toContain('\n');
    expect(notFound('accessory').stack).not.toContain('\n');
    expect(Error.stackTraceLimit).toBe(limit);
    expect(new Error('other').stack).toMatch(/\n\s+at /);
  });
});
