// Prints the closing line CI reads, `N passed, N failed`, from vitest's JSON report. A run that
// never reached vitest (lint or type errors) has no report and counts as one failure.
import fs from 'node:fs';

const file = process.argv[2] ?? 'test-results.json';
let passed = 0;
let failed = 1;
if (fs.existsSync(file)) {
  const report = JSON.parse(fs.readFileSync(file, 'utf8'));
  passed = report.numPassedTests;
  failed = report.numFailedTests + (report.success || report.numFailedTests > 0 ? 0 : 1);
}
console.log(`${passed} passed, ${failed} failed`);
