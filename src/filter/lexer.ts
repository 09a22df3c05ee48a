import { invalidArgument } from '../errors.ts';

export type LiteralToken =
  | { kind: 'number'; text: string; position: number; value: number }
  | { kind: 'string'; text: string; position: number; value: string };

export type Token =
  { kind: 'identifier' | 'symbol' | 'end'; text: string; position: number } | LiteralToken;

/** The error for a syntax or type error at `position` (a 0-based UTF-16 offset into the filter). */
export const filterError = (message: string, position: number) =>
  invalidArgument('filter', `${message} at position ${position}`, { position });

/** Source text shortened for an error message. */
export const excerpt = (text: string) => (text.length > 40 ? `${text.slice(0, 40)}…` : text);

const tokenPattern =
  /[ \t\r\n]+|(?<identifier>[A-Za-z_]\w*)|(?<number>-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)|(?<symbol><>|<=|>=|[=<>(),[\]])/y;
/** The longest valid start of a string literal: no NUL, no unpaired surrogate, only \" and \\ escapes. */
const stringStart = /"(?:[^"\\\0\p{Cs}]|\\["\\])*/uy;

/** Splits the filter into tokens, dropping whitespace (the parser supplies the end token). */
export function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  let position = 0;
  while (position < text.length) {
    if (text[position] === '"') {
      const token = stringToken(text, position);
      tokens.push(token);
      position += token.text.length;
      continue;
    }
    tokenPattern.lastIndex = position;
    const groups = tokenPattern.exec(text)?.groups;
    if (!groups) {
      const char = JSON.stringify(String.fromCodePoint(text.codePointAt(position) ?? 0));
      const hint = text.startsWith('!=', position) ? "; use '<>' for not equal" : '';
      throw filterError(`unexpected character ${char}${hint}`, position);
    }
    const { identifier, number, symbol } = groups;
    if (identifier !== undefined) tokens.push({ kind: 'identifier', text: identifier, position });
    if (symbol !== undefined) tokens.push({ kind: 'symbol', text: symbol, position });
    if (number !== undefined) {
      const value = Number(number) + 0; // + 0 turns -0 into 0
      if (!Number.isFinite(value))
        throw filterError(`number ${excerpt(number)} is too large`, position);
      tokens.push({ kind: 'number', text: number, position, value });
    }
    position = tokenPattern.lastIndex;
  }
  return tokens;
}

function stringToken(text: string, position: number): LiteralToken {
  stringStart.lastIndex = position;
  const start = stringStart.exec(text)?.[0] ?? '"';
  const end = position + start.length;
  if (text[end] === '"') {
    const value = start.slice(1).replace(/\\(["\\])/g, '$1');
    return { kind: 'string', text: `${start}"`, position, value };
  }
  const next = text[end];
  if (next === undefined || (next === '\\' && end + 1 === text.length)) {
    throw filterError('unterminated string', position);
  }
  throw filterError(
    next === '\\'
      ? `invalid escape sequence '${text.slice(end, end + 2)}' (only \\" and \\\\ are allowed)`
      : 'strings may not contain NUL characters or unpaired surrogates',
    end,
  );
}
