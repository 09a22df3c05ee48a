import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const read = (file: string) => readFileSync(new URL(`../../${file}`, import.meta.url), 'utf8');

describe('docs/operations.md', () => {
  it('describes every variable the configuration reads', () => {
    const sources = read('src/config.ts') + read('src/media/ffmpeg.ts');
    const names = new Set(
      [...sources.matchAll(/\benv\.([A-Z][A-Z0-9_]+)|\(env, '([A-Z][A-Z0-9_]+)'/g)].map(
        (m) => m[1] ?? m[2]!,
      ),
    );
    names.add('FFMPEG_PATH').add('FFPROBE_PATH'); // ffmpeg.ts derives them from the tool name
    names.delete('PATH');
    expect(names.size).toBeGreaterThan(40);
    const doc = read('docs/operations.md');
    expect([...names].filter((name) => !doc.includes(`\`${name}\``))).toEqual([]);
  });
});
