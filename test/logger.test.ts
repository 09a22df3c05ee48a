import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../src/logger.ts';

/** The JSON lines a logger writes. */
function captured() {
  const lines: Record<string, unknown>[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
      done();
    },
  });
  return { lines, logger: createLogger('info', stream) };
}

describe('createLogger', () => {
  it('logs an error with its type, message, stack and own fields', () => {
    const { lines, logger } = captured();
    const err = Object.assign(new Error('connection refused'), { code: 'ECONNREFUSED' });
    logger.warn({ err }, 'failed');
    expect(lines[0]).toMatchObject({
      level: 40,
      service: 'clipgate',
      msg: 'failed',
      err: { type: 'Error', message: 'connection refused', code: 'ECONNREFUSED' },
    });
    expect((lines[0]!.err as { stack: string }).stack).toMatch(/^Error: connection refused\n/);
  });

  it("leaves out the client pg-pool attaches to an idle connection's error", () => {
    const { lines, logger } = captured();
    // As pg-pool's idle listener does: the error of an idle client carries that client.
    const client = {
      connectionParameters: { database: 'test' },
      parsedStatements: { a: 'SELECT 1' },
    };
    const err = Object.assign(new Error('terminating connection'), { code: '57P01', client });
    logger.warn({ err }, 'idle connection failed');
    expect(lines[0]!.err).toMatchObject({ message: 'terminating connection', code: '57P01' });
    expect(lines[0]!.err).not.toHaveProperty('client');
  });
});
