// Prints the closing line CI reads, `N passed, N failed`, summed over vitest's JSON reports (one
// per Node line the suite ran on). A run that never reached vitest (lint or type errors) has no
// report and counts as one failure; so does a report of a run that failed without a failed test.
import fs from 'node:fs';

const files = process.argv.slice(2);
let passed = 0;
let failed = files.length === 0 ? 1 : 0;
for (const file of files) {
  if (!fs.existsSync(file)) {
    failed += 1;
    continue;
  }
  const report = JSON.parse(fs.readFileSync(file, 'utf8'));
  passed += report.numPassedTests;
  failed += report.numFailedTests + (report.success || report.numFailedTests > 0 ? 0 : 1);
}
console.log(`${passed} passed, ${failed} failed`);
