import { EventEmitter } from 'node:events';
import type { ServerResponse } from 'node:http';
import { describe, expect, it } from 'vitest';
import { withCloseSignal } from '../../src/http/close-signal.ts';

/** A response as closeSignal reads it: `closed`, and a 'close' event. */
const response = () =>
  Object.assign(new EventEmitter(), { closed: false }) as unknown as ServerResponse &
    EventEmitter & { closed: boolean };

describe('a request input with its close signal', () => {
  it('makes the signal when first read, the same one after, aborted once the answer closes', () => {
    const res = response();
    const input = withCloseSignal({ params: { id: 'a' } }, res);
    expect(res.listenerCount('close')).toBe(0);
    const { signal, params } = input;
    expect(params).toEqual({ id: 'a' });
    expect(res.listenerCount('close')).toBe(1);
    expect(input.signal).toBe(signal);
    expect(signal.aborted).toBe(false);
    res.emit('close');
    expect(signal.aborted).toBe(true);
  });

  it('gives each input its own signal, and an answer already closed an aborted one', () => {
    const open = response();
    const closed = Object.assign(response(), { closed: true });
    const a = withCloseSignal({}, open);
    const b = withCloseSignal({}, open);
    expect(a.signal).not.toBe(b.signal);
    expect(withCloseSignal({}, closed).signal.aborted).toBe(true);
    expect(Object.keys(a)).toEqual(['signal']);
  });

  it("keeps its signal in a copy of its getters and enumerable symbols (Yoga's server adapter)", () => {
    const res = response();
    const context = withCloseSignal({ caller: 'c' }, res);
    const copy = {};
    for (const key of Reflect.ownKeys(context)) {
      const descriptor = Object.getOwnPropertyDescriptor(context, key)!;
      if (typeof key === 'string' || descriptor.enumerable) {
        Object.defineProperty(copy, key, descriptor);
      }
    }
    const { signal } = copy as typeof context;
    expect(signal.aborted).toBe(false);
    res.emit('close');
    expect(signal.aborted).toBe(true);
  });
});
