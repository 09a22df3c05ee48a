// `npm test`: lint and the type check (their commands at once), then the suite, each timed.
// Then where the suite's time went, from vitest's JSON report: the slowest files, each with what
// its tests took and what the rest of the file took (imports, start-up and tear-down in hooks).
// A file over FILE_BUDGET_S that test/slow-files.json does not list with a reason fails the run
// on CI (CI=true) and is named on a developer's machine. Arguments go to vitest (`npm test --
// test/limits` runs a folder's files after the checks).
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';

const FILE_BUDGET_S = 90;
const SHOWN = 12;
const root = path.resolve(import.meta.dirname, '..');
const binDir = path.join(root, 'node_modules', '.bin');
const bin = (name) => path.join(binDir, name);

/**
 * The checks are the commands of `npm run lint` and `npm run typecheck` (package.json), run at
 * once: each is a process of its own that mostly computes, and one after the other they left a
 * core idle. Their output is printed when all have ended, command by command.
 */
const scripts = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')).scripts;
const checks = ['lint', 'typecheck'].flatMap((name) => scripts[name].split(' && '));
const took = [];
let status = 0;
// CI's second and third lines run the suite only: the checks do not depend on the Node line.
if (!process.env.TEST_SKIP_CHECKS) {
  const started = performance.now();
  const ran = await Promise.all(checks.map(runCheck));
  for (const { command, output, code } of ran) {
    process.stdout.write(output);
    if (code !== 0) {
      status = code ?? 1;
      console.error(`npm test: ${command} failed`);
    }
  }
  const each = ran.map(({ command, ms }) => `${command.split(' ')[0]} ${seconds(ms)}`);
  took.push(`checks ${seconds(performance.now() - started)} (at once: ${each.join(', ')})`);
}
if (status === 0) {
  const started = performance.now();
  const suite = spawnSync(bin('vitest'), ['run', ...process.argv.slice(2)], {
    cwd: root,
    stdio: 'inherit',
  });
  took.push(`suite ${seconds(performance.now() - started)}`);
  if (suite.status !== 0) {
    status = suite.status ?? 1;
    console.error(`npm test: suite failed${suite.signal ? ` (${suite.signal})` : ''}`);
  }
}
console.log(`\nnpm test phases: ${took.join(', ')}`);
if (!fileReport()) status ||= 1;
process.exit(status);

/** Runs a check's command as npm would (node_modules/.bin on the PATH), its output kept. */
function runCheck(command) {
  const started = performance.now();
  return new Promise((resolve) => {
    const child = spawn(command, {
      cwd: root,
      shell: true,
      env: {
        ...process.env,
        PATH: `${binDir}${path.delimiter}${process.env.PATH}`,
      },
    });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    child.on('close', (code) =>
      resolve({ command, output, code, ms: performance.now() - started }),
    );
  });
}

function seconds(ms) {
  return `${(ms / 1000).toFixed(1)} s`;
}

/** Prints the slowest files; false when one is over budget without a reason, on CI. */
function fileReport() {
  const report = path.join(root, 'test-results.json');
  if (!fs.existsSync(report)) return true;
  const allowed = JSON.parse(fs.readFileSync(path.join(root, 'test', 'slow-files.json'), 'utf8'));
  const files = JSON.parse(fs.readFileSync(report, 'utf8'))
    .testResults.map((file) => {
      const name = path.relative(root, file.name);
      const wallMs = file.endTime - file.startTime;
      const testsMs = file.assertionResults.reduce((sum, t) => sum + (t.duration ?? 0), 0);
      return { name, wallMs, testsMs };
    })
    .sort((a, b) => b.wallMs - a.wallMs);
  console.log(`slowest of ${files.length} test files (file: its tests + the rest):`);
  for (const { name, wallMs, testsMs } of files.slice(0, SHOWN)) {
    console.log(
      `  ${name}: ${seconds(wallMs)} (${seconds(testsMs)} + ${seconds(wallMs - testsMs)})`,
    );
  }
  const over = files.filter((f) => f.wallMs > FILE_BUDGET_S * 1000 && !allowed[f.name]);
  for (const { name, wallMs } of over) {
    console.error(
      `npm test: ${name} took ${seconds(wallMs)}, over the ${FILE_BUDGET_S} s a file may take; ` +
        'make it faster, split it, or list it with its reason in test/slow-files.json',
    );
  }
  return over.length === 0 || !process.env.CI;
}
