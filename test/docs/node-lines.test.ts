/**
 * The Node lines the project supports: package.json's `engines`, what the installed dependencies
 * declare, the lines CI runs the suite on, and the docs agree (docs/decisions/0138-node-lines.md).
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { promisify } from 'node:util';
import semver from 'semver';
import { describe, expect, it } from 'vitest';

const read = (file: string) => readFileSync(new URL(`../../${file}`, import.meta.url), 'utf8');
const pkg = JSON.parse(read('package.json')) as { engines: { node: string } };
const lock = JSON.parse(read('package-lock.json')) as {
  packages: Record<string, { engines?: { node?: unknown }; optional?: boolean }>;
};
/** Where each line of `engines` starts, e.g. 22.15.0. */
const floors = pkg.engines.node.split('||').map((range) => semver.minVersion(range.trim())!);

describe('the Node lines', () => {
  it('start where every dependency runs', () => {
    for (const floor of floors) {
      // An optional package (a platform's build) that does not fit is left out by npm.
      const refusing = Object.entries(lock.packages)
        .filter(
          ([path, { engines, optional }]) => path && !optional && typeof engines?.node === 'string',
        )
        .filter(([, { engines }]) => !semver.satisfies(floor, engines!.node as string))
        .map(([path, { engines }]) => `${path.replace(/^.*node_modules\//, '')} ${engines!.node}`);
      expect([floor.version, refusing]).toEqual([floor.version, []]);
    }
  });

  it('are run by CI: its oldest and its newest', () => {
    const ci = read('.ci/run');
    const lines = ['OLDEST', 'NEWEST'].map((name) =>
      Number(new RegExp(`^${name}=(\\d+)$`, 'm').exec(ci)![1]),
    );
    const majors = floors.map((floor) => floor.major);
    expect(lines).toEqual([Math.min(...majors), Math.max(...majors)]);
  });

  it('are the ones the README and operations.md promise', () => {
    for (const doc of ['README.md', 'docs/operations.md']) {
      const text = read(doc).replace(/\s+/g, ' ');
      expect([doc, text.includes(`22 (from ${floors[0]!.major}.${floors[0]!.minor})`)]).toEqual([
        doc,
        true,
      ]);
      expect([doc, /20\.19/.test(text)]).toEqual([doc, false]);
    }
  });

  it('are explained after npm install on a line outside them', async () => {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, [
      'scripts/node-line.mjs',
    ]);
    expect(stdout).toBe('');
    if (semver.satisfies(process.version, pkg.engines.node)) expect(stderr).toBe('');
    else expect(stderr).toContain(`Node ${process.versions.node} is not one of the Node lines`);
  });
});
