// `npm test`: lint, the type check and the suite, one after the other as `&&` would run them,
// each timed. Then where the suite's time went, from vitest's JSON report: the slowest files,
// each with what its tests took and what the rest of the file took (imports, start-up and
// tear-down in hooks). A file over FILE_BUDGET_S that test/slow-files.json does not list with a
// reason fails the run on CI (CI=true) and is named on a developer's machine. Arguments go to
// vitest (`npm test -- test/limits` runs a folder's files after the checks).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';

const FILE_BUDGET_S = 90;
const SHOWN = 12;
const root = path.resolve(import.meta.dirname, '..');
const bin = (name) => path.join(root, 'node_modules', '.bin', name);

const checks = [
  ['lint', 'npm', ['run', '-s', 'lint']],
  ['typecheck', 'npm', ['run', '-s', 'typecheck']],
];
// CI's second and third lines run the suite only: the checks do not depend on the Node line.
const phases = [
  ...(process.env.TEST_SKIP_CHECKS ? [] : checks),
  ['suite', bin('vitest'), ['run', ...process.argv.slice(2)]],
];
const took = [];
let status = 0;
for (const [name, command, args] of phases) {
  const started = performance.now();
  const { status: code, signal } = spawnSync(command, args, { cwd: root, stdio: 'inherit' });
  took.push(`${name} ${seconds(performance.now() - started)}`);
  if (code !== 0) {
    status = code ?? 1;
    console.error(`npm test: ${name} failed${signal ? ` (${signal})` : ''}`);
    break;
  }
}
console.log(`\nnpm test phases: ${took.join(', ')}`);
if (!fileReport()) status ||= 1;
process.exit(status);

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
