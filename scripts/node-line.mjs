// After `npm install`: on a Node line package.json's `engines` does not list, says so in plain
// words under npm's EBADENGINE warnings, which it leaves as they are (docs/decisions/0138-node-lines.md).
import { readFileSync } from 'node:fs';
import { URL } from 'node:url';

const { engines } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
const [major, minor] = process.versions.node.split('.').map(Number);
// `^22.15.0 || ^24.0.0 || ^26.0.0`: a major line each, from a minor on.
const supported = engines.node.split('||').some((range) => {
  const [lineMajor, lineMinor] = range.trim().replace(/^\^/, '').split('.').map(Number);
  return major === lineMajor && minor >= lineMinor;
});
if (!supported) {
  const advice =
    major === 20
      ? 'Node 20 is past its end of life (April 2026); the service and its tests still run on it ' +
        '(CI checks that), but install Node 22, 24 or 26.'
      : 'Install Node 22, 24 or 26.';
  console.warn(
    `\nclipgate: Node ${process.versions.node} is not one of the Node lines it supports ` +
      `(${engines.node}), which its dependencies require: graphql-yoga's and Prisma's declare ` +
      `Node 22 or 22.15 and later, as npm's EBADENGINE warnings above say. ${advice}\n`,
  );
}
