import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

// The import rules of .dependency-cruiser.mjs (`npm run lint` runs them): the layers of
// docs/layout.md, upward imports only where the config lists them, and no cycles.

const root = path.resolve(import.meta.dirname, '..');
const configFile = path.join(root, '.dependency-cruiser.mjs');
const { domains, layers, upward } = (await import(configFile)) as {
  domains: string[];
  layers: { name: string; path: string }[];
  upward: [string, string][];
};

/**
 * The rules depcruise finds broken in `src` under `cwd`, and its exit status, as lint sees them:
 * one run with lint's `err` output, which names each broken rule on a line of its own.
 */
function cruise(cwd: string): { status: number | null; rules: string[] } {
  const run = spawnSync(
    process.execPath,
    [
      path.join(root, 'node_modules/dependency-cruiser/bin/dependency-cruise.mjs'),
      '--config',
      configFile,
      '--output-type',
      'err',
      'src',
    ],
    { cwd, encoding: 'utf8' },
  );
  const rules = [...run.stdout.matchAll(/^ {2}(?:error|warn|info) ([\w-]+):/gm)].map((m) => m[1]!);
  return { status: run.status, rules };
}

describe('the layers', () => {
  const fixture = mkdtempSync(path.join(os.tmpdir(), 'clipgate-layers-'));
  afterAll(() => rmSync(fixture, { recursive: true, force: true }));

  it('put every module of src in exactly one layer', () => {
    const modules = readdirSync(path.join(root, 'src'), { recursive: true, encoding: 'utf8' })
      .filter((f) => f.endsWith('.ts') && !f.startsWith('generated'))
      .map((f) => `src/${f.split(path.sep).join('/')}`);
    expect(modules.length).toBeGreaterThan(150);
    const homes = (module: string) => layers.filter((l) => new RegExp(l.path).test(module));
    expect(modules.filter((m) => homes(m).length !== 1)).toEqual([]);
    expect(homes('src/activities/service.ts')[0]!.name).toBe('activities');
    expect(homes('src/http/routes/activities.ts')[0]!.name).toBe('transport');
    expect(upward.length).toBeLessThanOrEqual(10);
  });

  it('stack the domains in the order docs/layout.md names', () => {
    const layout = readFileSync(path.join(root, 'docs/layout.md'), 'utf8');
    expect(layout).toContain(domains.join(' → '));
    expect(layers.map((l) => l.name)).toEqual(expect.arrayContaining(domains));
  });

  it('hold in src', () => {
    expect(cruise(root)).toEqual({ status: 0, rules: [] });
  });

  it('refuse an upward import and a cycle', () => {
    const write = (file: string, text: string) => {
      mkdirSync(path.dirname(path.join(fixture, file)), { recursive: true });
      writeFileSync(path.join(fixture, file), text);
    };
    write(
      'tsconfig.json',
      JSON.stringify({ compilerOptions: { allowImportingTsExtensions: true } }),
    );
    // A domain module that takes a helper from the HTTP layer, which imports it back.
    write('src/activities/model.ts', "import { helper } from '../http/openapi.ts';\nhelper();\n");
    write(
      'src/http/openapi.ts',
      "import '../activities/model.ts';\nexport const helper = () => 1;\n",
    );
    // A domain that imports one above it (events lies below activities).
    write('src/events/outbox.ts', "import '../activities/model.ts';\n");
    // A primitive that reaches into a domain.
    write('src/ids.ts', "import './activities/model.ts';\n");
    const { status, rules } = cruise(fixture);
    expect(status).not.toBe(0);
    expect(rules.sort()).toEqual([
      'activities-points-down',
      'events-points-down',
      'no-circular',
      'primitive-points-down',
    ]);
  });
});
