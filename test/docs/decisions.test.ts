/**
 * The decision records (docs/decisions/): each is short and has a status, a superseded one names
 * the record that replaced it, and the index links every record.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const dir = fileURLToPath(new URL('../../docs/decisions/', import.meta.url));
const records = readdirSync(dir)
  .filter((f) => /^\d{4}-[a-z0-9-]+\.md$/.test(f))
  .sort();
const read = (file: string) => readFileSync(path.join(dir, file), 'utf8');

describe('the decision records', () => {
  it('exist, numbered from 0001 without gaps', () => {
    expect(records.length).toBeGreaterThan(0);
    expect(records.map((f) => Number(f.slice(0, 4)))).toEqual(records.map((_, i) => i + 1));
  });

  it.each(records)('%s has its parts, a status and at most 80 lines', (file) => {
    const text = read(file);
    expect(text.startsWith(`# ${file.slice(0, 4)}. `)).toBe(true);
    for (const part of ['## Context', '## Decision', '## Consequences'])
      expect([file, text.includes(`\n${part}\n`)]).toEqual([file, true]);
    const status = /^Status: (.+)$/m.exec(text)?.[1];
    const superseding = /^Superseded by \[(\d{4})\]\((\d{4}-[a-z0-9-]+\.md)\)$/.exec(status ?? '');
    expect([file, status === 'Accepted' || superseding !== null]).toEqual([file, true]);
    if (superseding) expect(records).toContain(superseding[2]);
    expect(text.split('\n').length).toBeLessThanOrEqual(81);
  });

  it('are each linked from the index', () => {
    const index = read('README.md');
    const linked = new Set([...index.matchAll(/\]\((\d{4}-[a-z0-9-]+\.md)\)/g)].map((m) => m[1]));
    expect(records.filter((f) => !linked.has(f))).toEqual([]);
  });
});
