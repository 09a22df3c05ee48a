import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { statSync } from 'node:fs';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Runs the shell examples of the docs as a reader would, one shell for all of them, in order.
 *
 * A ```` ```sh ```` block says whether it runs: ```` ```sh test ```` runs, and
 * ```` ```sh not tested: <why> ```` does not, saying why; an unmarked one is an error, so that a
 * new example is tested or says why it is not. In a block that runs:
 *
 * - Each command runs on its own. The lines starting with `# ` under one are what it promises
 *   to print: JSON whose members must be there with these values (a string with `...` in it
 *   matches any), or lines of text that must appear. A command's own trailing `# ...` is a
 *   comment.
 * - Every command must succeed: `curl` runs with `--fail-with-body` (an HTTP error fails the
 *   step), and an answer with `error` (REST) or `errors` (GraphQL) fails it too, unless promised.
 * - `<name>` (or `<a.b>`) is a placeholder for a value an earlier answer gave: the latest answer
 *   with a member `name` (at any depth) fills it.
 * - `npm install` is skipped (the checkout is installed), and `VAR=... npm start` (re)starts the
 *   service the examples talk to, with those variables; a command ending in `&` runs in the
 *   background, its output in a log.
 * - The shell's PATH has only the tools a fresh machine has (`tools` below): an example that
 *   needs jq, ffprobe or uuidgen fails.
 */

const root = fileURLToPath(new URL('../../', import.meta.url));

export interface DocBlock {
  file: string;
  /** The line of the opening fence, 1-based. */
  line: number;
  info: string;
  code: string;
}

/** Every ```` ```sh ```` block of a Markdown file. */
export async function shellBlocks(file: string): Promise<DocBlock[]> {
  const text = await fs.readFile(path.join(root, file), 'utf8');
  const blocks: DocBlock[] = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const open = /^```(sh(?:\s.*)?)$/.exec(lines[i]!);
    if (!open) continue;
    const end = lines.indexOf('```', i + 1);
    blocks.push({
      file,
      line: i + 1,
      info: open[1]!.trim(),
      code: lines.slice(i + 1, end).join('\n'),
    });
    i = end;
  }
  return blocks;
}

/** `run` for ```` ```sh test ````, the reason for ```` ```sh not tested: ... ````, else undefined. */
export function markOf(block: DocBlock): 'run' | { notTested: string } | undefined {
  if (block.info === 'sh test') return 'run';
  const skip = /^sh not tested: (.+)$/.exec(block.info);
  return skip ? { notTested: skip[1]! } : undefined;
}

export interface Step {
  /** One shell command (its continuation lines and multi-line quotes included). */
  command: string;
  /** What the block says it prints (the `# ` lines under it), if it says. */
  promised?: string;
}

/**
 * A block's commands, each with the `# ` lines under it. A command ends at a line end outside
 * quotes and not escaped (a here-document is not understood: keep it out of tested blocks).
 */
export function stepsOf(block: DocBlock): Step[] {
  const steps: Step[] = [];
  let command = '';
  let quote: string | undefined;
  const lines = block.code.split('\n');
  for (const line of lines) {
    if (!quote && command === '' && /^#( |$)/.test(line)) {
      const last = steps.at(-1);
      if (last)
        last.promised =
          last.promised === undefined ? line.slice(2) : `${last.promised}\n${line.slice(2)}`;
      continue;
    }
    command += command === '' ? line : `\n${line}`;
    for (let i = 0; i < line.length; i++) {
      const c = line[i]!;
      if (c === '\\' && quote !== "'") i++;
      else if (quote) {
        if (c === quote) quote = undefined;
      } else if (c === "'" || c === '"') quote = c;
      else if (c === '#' && (i === 0 || /\s/.test(line[i - 1]!))) break; // a comment
    }
    if (!quote && !line.endsWith('\\')) {
      if (command.trim() !== '') steps.push({ command });
      command = '';
    }
  }
  return steps;
}

/** The JSON values in a text (answers printed one after the other, with or without newlines). */
export function jsonValues(text: string): unknown[] {
  const values: unknown[] = [];
  for (let start = 0; start < text.length; start++) {
    if (text[start] !== '{' && text[start] !== '[') continue;
    let depth = 0;
    let inString = false;
    for (let i = start; i < text.length; i++) {
      const c = text[i]!;
      if (inString) {
        if (c === '\\') i++;
        else if (c === '"') inString = false;
      } else if (c === '"') inString = true;
      else if (c === '{' || c === '[') depth++;
      else if (c === '}' || c === ']') {
        if (--depth > 0) continue;
        try {
          values.push(JSON.parse(text.slice(start, i + 1)));
          start = i;
        } catch {
          // not JSON after all: look further on
        }
        break;
      }
    }
  }
  return values;
}

/** Whether `actual` has every member of `promised` with its value; `"...x..."` is any string. */
export function fulfils(actual: unknown, promised: unknown): boolean {
  if (typeof promised === 'string' && promised.includes('...')) return typeof actual === 'string';
  if (Array.isArray(promised)) {
    return (
      Array.isArray(actual) &&
      promised.length === actual.length &&
      promised.every((p, i) => fulfils(actual[i], p))
    );
  }
  if (promised && typeof promised === 'object') {
    if (!actual || typeof actual !== 'object') return false;
    return Object.entries(promised).every(
      ([key, value]) => key === '...' || fulfils((actual as Record<string, unknown>)[key], value),
    );
  }
  return actual === promised;
}

/** The value at `dotted` in the latest of `answers` that has it, at any depth. */
export function findValue(answers: unknown[], dotted: string): string | undefined {
  const at = (value: unknown): string | undefined => {
    let current = value;
    for (const key of dotted.split('.')) {
      if (!current || typeof current !== 'object') return undefined;
      current = (current as Record<string, unknown>)[key];
    }
    return typeof current === 'string' || typeof current === 'number' ? String(current) : undefined;
  };
  const search = (value: unknown): string | undefined => {
    if (!value || typeof value !== 'object') return undefined;
    const here = at(value);
    if (here !== undefined) return here;
    for (const child of Object.values(value).reverse()) {
      const found = search(child);
      if (found !== undefined) return found;
    }
    return undefined;
  };
  for (const answer of [...answers].reverse()) {
    const found = search(answer);
    if (found !== undefined) return found;
  }
  return undefined;
}

/** What a fresh machine has besides the shell's own commands: no jq, ffprobe, uuidgen. */
const tools = [
  ...['bash', 'sh', 'env', 'cat', 'printf', 'sleep', 'kill', 'rm', 'ls', 'mkdir', 'date'],
  ...['head', 'tail', 'grep', 'sed', 'tr', 'cut', 'wc', 'dirname', 'basename', 'uname'],
  ...['curl', 'node', 'npm', 'npx'],
];

const END = '__DOC_STEP_END__';
const FAILED = '__DOC_COMMAND_FAILED__';

/** One shell for every example, in a directory of its own that sees the checkout. */
export class DocShell {
  private output = '';
  private waiting: (() => void) | undefined;

  private constructor(
    private readonly shell: ChildProcessWithoutNullStreams,
    readonly dir: string,
  ) {
    const collect = (chunk: Buffer) => {
      this.output += chunk.toString();
      this.waiting?.();
    };
    shell.stdout.on('data', collect);
    shell.stderr.on('data', collect);
  }

  /** A shell in a scratch directory holding links to the checkout's files, with `env`. */
  static async open(env: Record<string, string>): Promise<DocShell> {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'clipgate-docs-'));
    for (const entry of await fs.readdir(root)) {
      if (entry === '.git' || entry === 'data') continue;
      await fs.symlink(path.join(root, entry), path.join(dir, entry));
    }
    const bin = path.join(dir, '.tools');
    await fs.mkdir(bin);
    for (const tool of tools) {
      const found = (process.env.PATH ?? '')
        .split(path.delimiter)
        .map((d) => path.join(d, tool))
        .find((p) => existsExecutable(p));
      if (found) await fs.symlink(found, path.join(bin, tool));
    }
    const shell = spawn('bash', ['--noprofile', '--norc'], {
      cwd: dir,
      env: { HOME: process.env.HOME ?? dir, LANG: 'C.UTF-8', ...env, PATH: bin },
      detached: true,
    });
    const docShell = new DocShell(shell, dir);
    await docShell.run(
      [
        'set -o pipefail',
        `trap 'printf "\\n${FAILED} %s: %s\\n" "$?" "$BASH_COMMAND"' ERR`,
        // An HTTP error fails the command, as a reader would see it fail (unless it says how).
        'curl() {',
        '  local a; for a in "$@"; do case $a in --fail|-f|--fail-with-body) command curl "$@"; return;; esac; done',
        '  command curl --fail-with-body "$@"',
        '}',
      ].join('\n'),
    );
    return docShell;
  }

  /** Runs shell text; resolves with what it printed, and the commands that failed. */
  async run(text: string, timeoutMs = 60_000): Promise<{ output: string; failed: string[] }> {
    this.output = '';
    // Sourced from a file, with no input: a command that reads its input (ffmpeg does) must
    // not read the commands that follow it.
    const step = path.join(this.dir, '.step.sh');
    await fs.writeFile(step, `${text}\n`);
    this.shell.stdin.write(`. ${JSON.stringify(step)} < /dev/null\nprintf '\\n${END}\\n'\n`);
    const deadline = Date.now() + timeoutMs;
    while (!this.output.includes(`\n${END}\n`)) {
      if (Date.now() > deadline) throw new Error(`no end within ${timeoutMs} ms: ${text}`);
      await new Promise<void>((resolve) => {
        this.waiting = resolve;
        setTimeout(resolve, 200);
      });
    }
    const output = this.output.slice(0, this.output.indexOf(`\n${END}\n`));
    // The step's own sourcing fails with its last command, which has said so already.
    const failed = [...output.matchAll(new RegExp(`^${FAILED} (.*)$`, 'gm'))]
      .map((m) => m[1]!)
      .filter((command) => !command.includes(step));
    return { output, failed };
  }

  /** Ends the shell and everything it started. */
  async close(): Promise<void> {
    try {
      process.kill(-this.shell.pid!, 'SIGTERM');
    } catch {
      // gone already
    }
    await fs.rm(this.dir, { recursive: true, force: true });
  }
}

function existsExecutable(file: string): boolean {
  try {
    return statSync(file).isFile();
  } catch {
    return false;
  }
}

export interface RunnerOptions {
  /** Rewrites a step for this machine before it runs (e.g. the documented ports to free ones). */
  substitute(text: string): string;
  /** (Re)starts the service with these variables, for a documented `VAR=... npm start`. */
  start(env: Record<string, string>): Promise<void>;
}

const START = /^\s*((?:[A-Z_][A-Z0-9_]*=\S+\s+)*)npm start\s*(?:#.*)?$/;
const INSTALL = /^\s*npm (?:install|ci)\b/;

/** Runs the blocks that run, in order, in one shell; collects what did not behave as written. */
export class DocRunner {
  /** Every JSON answer so far, oldest first: where placeholders are filled from. */
  readonly answers: unknown[] = [];

  constructor(
    private readonly shell: DocShell,
    private readonly options: RunnerOptions,
  ) {}

  /** What went wrong in the block: nothing when it behaved as written. */
  async run(block: DocBlock): Promise<string[]> {
    const problems: string[] = [];
    const where = `${block.file}:${block.line}`;
    for (const step of stepsOf(block)) {
      if (INSTALL.test(step.command)) continue;
      const start = START.exec(step.command);
      if (start) {
        const env = [...start[1]!.matchAll(/([A-Z_][A-Z0-9_]*)=(\S+)/g)].map(([, k, v]) => [
          k!,
          v!,
        ]);
        await this.options.start(Object.fromEntries(env));
        continue;
      }
      const filled = step.command.replace(/<([A-Za-z][\w.]*)>/g, (placeholder, name: string) => {
        const value = findValue(this.answers, name);
        if (value === undefined) problems.push(`${where}: no earlier answer has ${placeholder}`);
        return value ?? placeholder;
      });
      // In the background, its output goes to a log instead of mixing with the next answers.
      const text = this.options
        .substitute(filled)
        .replace(/([^&])&[ \t]*$/, '$1>> "$DOC_BACKGROUND_LOG" 2>&1 &');
      const { output, failed } = await this.shell.run(text);
      const answers = jsonValues(output);
      this.answers.push(...answers);
      const show = `\n  ${text.split('\n').join('\n  ')}\n  => ${output.trim().slice(0, 800)}`;
      for (const failure of failed) problems.push(`${where}: failed (${failure}):${show}`);
      if (!step.promised) {
        for (const answer of answers) {
          if (answer && typeof answer === 'object' && ('error' in answer || 'errors' in answer)) {
            problems.push(`${where}: answered an error:${show}`);
          }
        }
      } else if (!this.keeps(this.options.substitute(step.promised), output, answers)) {
        problems.push(`${where}: not as promised (${step.promised}):${show}`);
      }
    }
    return problems;
  }

  private keeps(promised: string, output: string, answers: unknown[]): boolean {
    const expected = jsonValues(promised);
    if (expected.length > 0) return expected.every((e) => answers.some((a) => fulfils(a, e)));
    return promised.split('\n').every((line) => {
      const pattern = line.split('...').map((p) => p.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
      return new RegExp(pattern.join('.*')).test(output);
    });
  }
}
