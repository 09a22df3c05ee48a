import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parsedPath, requestPath } from '../../src/http/server.ts';

describe('requestPath', () => {
  it('gives the pathname URL parsing gives, for plain paths and any other target', () => {
    const part = fc.constantFrom(
      'a',
      'Z',
      '0',
      '_',
      '-',
      '~',
      '/',
      '.',
      '..',
      '%2F',
      '%',
      '?',
      '#',
      '\\',
      ' ',
      'é',
      '@',
      ':',
    );
    fc.assert(
      fc.property(fc.array(part, { maxLength: 12 }), fc.boolean(), (parts, rooted) => {
        const target = `${rooted ? '/' : ''}${parts.join('')}`;
        expect(requestPath(target)).toBe(parsedPath(target));
      }),
      { numRuns: 5000 },
    );
    for (const target of [
      '/api/accessories/4f1c/activities',
      '/graphql?x=1',
      '//graphql',
      '/a/./b',
      '/a/../b',
      '/',
    ]) {
      expect(requestPath(target)).toBe(parsedPath(target));
    }
  });
});
