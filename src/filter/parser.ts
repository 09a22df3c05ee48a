import { attributeKinds, comparisonOperators, filterAttributes, isListAttribute } from './ast.ts';
import type {
  ComparisonOperator,
  FilterAttribute,
  FilterNode,
  ListAttribute,
  Literal,
  Operand,
} from './ast.ts';
import { checkLiteral, typeError } from './check.ts';
import type { Target } from './check.ts';
import { excerpt, filterError, tokenize } from './lexer.ts';
import type { Token } from './lexer.ts';

export const MAX_FILTER_LENGTH = 4096;
/** How deep parentheses and NOT may nest. */
export const MAX_DEPTH = 64;
export const MAX_LIST_ITEMS = 128;

const keywords = new Set(['and', 'or', 'not', 'between']);
const functionNames = [
  'attribute_exists',
  'attribute_not_exists',
  'contains',
  'contains_any',
  'contains_all',
  'size',
];

const isWord = (token: Token, word: string) =>
  token.kind === 'identifier' && token.text.toLowerCase() === word;
const isSymbol = (token: Token, symbol: string) => token.kind === 'symbol' && token.text === symbol;
const isComparisonOperator = (text: string): text is ComparisonOperator =>
  (comparisonOperators as readonly string[]).includes(text);

const describeToken = (token: Token) =>
  token.kind === 'end' ? 'the end of the filter' : `'${excerpt(token.text)}'`;
const unexpected = (expected: string, token: Token) =>
  filterError(`expected ${expected}, found ${describeToken(token)}`, token.position);

/** Parses and type-checks a filter; throws an INVALID_ARGUMENT AppError with the error's position. */
export function parseFilter(text: string): FilterNode {
  if (text.length > MAX_FILTER_LENGTH) {
    throw filterError(
      `the filter is longer than ${MAX_FILTER_LENGTH} characters`,
      MAX_FILTER_LENGTH,
    );
  }
  return new Parser(text).filter();
}

/** A recursive-descent parser: or := and (OR and)*, and := not (AND not)*, not := NOT not | primary. */
class Parser {
  private readonly tokens: Token[];
  private readonly end: Token;
  private index = 0;
  private depth = 0;

  constructor(text: string) {
    this.tokens = tokenize(text);
    this.end = { kind: 'end', text: '', position: text.length };
  }

  filter(): FilterNode {
    const node = this.or();
    const token = this.next();
    if (token.kind !== 'end') throw unexpected('AND, OR or the end of the filter', token);
    return node;
  }

  private peek(): Token {
    return this.tokens[this.index] ?? this.end;
  }

  private next(): Token {
    const token = this.peek();
    this.index++;
    return token;
  }

  private accept(matches: (token: Token) => boolean): boolean {
    const accepted = matches(this.peek());
    if (accepted) this.index++;
    return accepted;
  }

  private expectSymbol(symbol: string, expected = `'${symbol}'`): void {
    const token = this.next();
    if (!isSymbol(token, symbol)) throw unexpected(expected, token);
  }

  /** Parses a NOT operand or a parenthesized expression, one nesting level deeper. */
  private nested(token: Token, parse: () => FilterNode): FilterNode {
    if (this.depth === MAX_DEPTH) {
      throw filterError(
        `parentheses and NOT nest more than ${MAX_DEPTH} levels deep`,
        token.position,
      );
    }
    this.depth++;
    const node = parse();
    this.depth--;
    return node;
  }

  /** A sequence of operands joined by AND or OR (a single operand stands for itself). */
  private chain(type: 'and' | 'or', operand: () => FilterNode): FilterNode {
    const first = operand();
    const operands = [first];
    while (this.accept((token) => isWord(token, type))) operands.push(operand());
    return operands.length > 1 ? { type, operands } : first;
  }

  private or(): FilterNode {
    return this.chain('or', () => this.chain('and', () => this.not()));
  }

  private not(): FilterNode {
    const token = this.peek();
    if (!this.accept((next) => isWord(next, 'not'))) return this.primary();
    return this.nested(token, () => ({ type: 'not', operand: this.not() }));
  }

  private primary(): FilterNode {
    const token = this.peek();
    if (this.accept((next) => isSymbol(next, '('))) {
      return this.nested(token, () => {
        const node = this.or();
        this.expectSymbol(')', "AND, OR or ')'");
        return node;
      });
    }
    const name = token.kind === 'identifier' ? token.text.toLowerCase() : '';
    if (name === '' || keywords.has(name)) {
      throw unexpected("a condition (a comparison, a function call, NOT or '(')", token);
    }
    switch (name) {
      case 'attribute_exists':
      case 'attribute_not_exists': {
        const attribute = this.arguments(() => this.attribute());
        return { type: name, attribute };
      }
      case 'contains':
      case 'contains_any':
      case 'contains_all':
        return this.arguments(() => {
          const attribute = this.listAttribute(name);
          this.expectSymbol(',');
          const target = { subject: attribute, kind: attributeKinds[attribute] };
          return name === 'contains'
            ? { type: name, attribute, value: this.scalar(target) }
            : { type: name, attribute, values: this.list(target, name) };
        });
      default:
        return this.comparison();
    }
  }

  /** Skips the function name and parses `( <args> )`. */
  private arguments<T>(parse: () => T): T {
    this.index++;
    this.expectSymbol('(');
    const result = parse();
    this.expectSymbol(')');
    return result;
  }

  private comparison(): FilterNode {
    const left = this.operand();
    const subject = left.type === 'size' ? `size(${left.attribute})` : left.attribute;
    const target = {
      subject,
      kind: left.type === 'size' ? 'number' : attributeKinds[left.attribute],
    };
    const token = this.next();
    if (isWord(token, 'between')) {
      const low = this.scalar(target);
      if (!this.accept((next) => isWord(next, 'and'))) throw unexpected('AND', this.peek());
      return { type: 'between', left, low, high: this.scalar(target) };
    }
    if (token.kind === 'symbol' && isComparisonOperator(token.text)) {
      return { type: 'compare', left, operator: token.text, value: this.scalar(target) };
    }
    throw unexpected(`a comparison operator or BETWEEN after ${subject}`, token);
  }

  private operand(): Operand {
    const token = this.peek();
    if (isWord(token, 'size')) {
      return { type: 'size', attribute: this.arguments(() => this.listAttribute('size')) };
    }
    const attribute = this.attribute();
    if (!isListAttribute(attribute)) return { type: 'attribute', attribute };
    throw filterError(
      `${attribute} is a list and cannot be compared; use contains, contains_any, contains_all or size(${attribute})`,
      token.position,
    );
  }

  private attribute(): FilterAttribute {
    const token = this.next();
    if (token.kind !== 'identifier') throw unexpected('an attribute', token);
    const attribute = filterAttributes.find((name) => name === token.text);
    if (attribute) return attribute;
    if (isSymbol(this.peek(), '(')) {
      const known = functionNames.join(', ');
      throw filterError(
        `unknown function '${excerpt(token.text)}' (known: ${known})`,
        token.position,
      );
    }
    const lower = token.text.toLowerCase();
    const similar = filterAttributes.find((name) => name.toLowerCase() === lower);
    const hint = similar
      ? `attribute names are case-sensitive: did you mean ${similar}?`
      : `known: ${filterAttributes.join(', ')}`;
    throw filterError(`unknown attribute '${excerpt(token.text)}' (${hint})`, token.position);
  }

  private listAttribute(functionName: string): ListAttribute {
    const { position } = this.peek();
    const attribute = this.attribute();
    if (isListAttribute(attribute)) return attribute;
    throw filterError(
      `${functionName} takes a list attribute (motionZones or objectLocations), but ${attribute} is not a list`,
      position,
    );
  }

  private scalar(target: Target): Literal {
    const token = this.next();
    if (token.kind === 'number' || token.kind === 'string') return checkLiteral(target, token);
    if (isSymbol(token, '[')) throw typeError(target, 'a list', token.position);
    throw unexpected('a number or a string', token);
  }

  private list(target: Target, functionName: string): Literal[] {
    const token = this.next();
    if (!isSymbol(token, '['))
      throw unexpected(`a list [...] as the second argument of ${functionName}`, token);
    const values: Literal[] = [];
    if (this.accept((next) => isSymbol(next, ']'))) return values;
    do {
      if (values.length === MAX_LIST_ITEMS) {
        throw filterError(`a list may hold at most ${MAX_LIST_ITEMS} items`, this.peek().position);
      }
      values.push(this.scalar(target));
    } while (this.accept((next) => isSymbol(next, ',')));
    this.expectSymbol(']', "',' or ']'");
    return values;
  }
}
