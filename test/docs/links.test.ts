/**
 * The README and docs/ (its subfolders included) link only to the repository itself: every
 * relative link resolves to a file or folder inside it that exists (and a `#fragment` into a
 * Markdown file to one of its headings), and no `../` anywhere in their text climbs out of the repository. Links to web
 * sites (http, https, mailto) are allowed and not fetched.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../', import.meta.url));
const documents = [
  'README.md',
  ...readdirSync(path.join(root, 'docs'), { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.md'))
    .sort()
    .map((f) => `docs/${f.split(path.sep).join('/')}`),
];

/** The text without fenced code blocks and code spans, where brackets are not links. */
const prose = (text: string) => text.replace(/^```[\s\S]*?^```/gm, '').replace(/`[^`\n]*`/g, '');

function linkTargets(text: string): string[] {
  const body = prose(text);
  const inline = [...body.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)];
  const references = [...body.matchAll(/^\s*\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)/gm)];
  const html = [...body.matchAll(/\b(?:href|src)\s*=\s*"([^"]+)"/g)];
  return [...inline, ...references, ...html].map((m) => m[1]!);
}

/** GitHub's anchors for a Markdown file's headings. */
function anchors(text: string): Set<string> {
  const seen = new Map<string, number>();
  const result = new Set<string>();
  for (const [, heading] of text
    .replace(/^```[\s\S]*?^```/gm, '')
    .matchAll(/^#{1,6}\s+(.+?)\s*#*$/gm)) {
    const slug = heading!
      .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const n = seen.get(slug) ?? 0;
    seen.set(slug, n + 1);
    result.add(n === 0 ? slug : `${slug}-${n}`);
  }
  return result;
}

const inside = (file: string) => {
  const relative = path.relative(root, file);
  return relative === '' || (!relative.startsWith('..') && !path.isAbsolute(relative));
};

/** What is wrong with one document's links; empty when nothing is. */
function linkProblems(document: string, text: string): string[] {
  const dir = path.dirname(path.join(root, document));
  const problems: string[] = [];
  for (const target of linkTargets(text)) {
    if (/^(https?|mailto):/i.test(target)) continue;
    if (/^[a-z][a-z0-9+.-]*:/i.test(target)) {
      problems.push(`${target}: not a web link nor a repository path`);
      continue;
    }
    const [pathPart, fragment] = target.split('#', 2) as [string, string | undefined];
    const file = pathPart
      ? path.resolve(dir, decodeURIComponent(pathPart))
      : path.join(root, document);
    if (pathPart.startsWith('/') || !inside(file)) {
      problems.push(`${target}: outside the repository`);
    } else if (!existsSync(file)) {
      problems.push(`${target}: no such file in the repository`);
    } else if (
      fragment &&
      file.endsWith('.md') &&
      !anchors(pathPart ? readFileSync(file, 'utf8') : text).has(fragment)
    ) {
      problems.push(`${target}: no heading #${fragment} in ${path.relative(root, file)}`);
    }
  }
  for (const [climb] of text.matchAll(/(?:\.\.\/)+[^\s`'")\]]*/g)) {
    if (!inside(path.resolve(dir, climb))) problems.push(`${climb}: outside the repository`);
  }
  return problems;
}

describe('links in the README and docs/', () => {
  it.each(documents)('%s points only into the repository, at what exists', (document) => {
    expect(linkProblems(document, readFileSync(path.join(root, document), 'utf8'))).toEqual([]);
  });

  it('finds links out of the repository and links to nothing', () => {
    const text = [
      'The contract is `../elsewhere/contract.md`; see [the guide](../guide.md),',
      '[decisions](docs/decisions/README.md), [gone](docs/missing.md), [a heading](#nowhere),',
      '[abs](/etc/passwd), [file](file:///etc/passwd), [web](https://example.com/x.md).',
      '[ref]: ../../outside.md',
      '```sh',
      'cat [not](a-link.md)',
      '```',
      '## Real heading',
      '[ok](#real-heading) [ops](docs/operations.md#several-instances)',
    ].join('\n');
    expect(linkProblems('README.md', text)).toEqual([
      '../guide.md: outside the repository',
      'docs/missing.md: no such file in the repository',
      '#nowhere: no heading #nowhere in README.md',
      '/etc/passwd: outside the repository',
      'file:///etc/passwd: not a web link nor a repository path',
      '../../outside.md: outside the repository',
      '../elsewhere/contract.md: outside the repository',
      '../guide.md: outside the repository',
      '../../outside.md: outside the repository',
    ]);
  });
});
