/**
 * Reading the text form of a tsquery, as Postgres prints it (`tsquery::text`, `querytree(…)`), into
 * a tree: what the phrase-pairs condition (search-pairs.ts) and the highlights' terms
 * (search-results.service.ts) are derived from.
 */

export type TsqueryNode =
  | { kind: 'lexeme'; text: string; exact: boolean }
  | { kind: 'not'; arg: TsqueryNode }
  | { kind: 'and' | 'or'; left: TsqueryNode; right: TsqueryNode }
  | { kind: 'phrase'; distance: number; left: TsqueryNode; right: TsqueryNode };

/** Parses the text form of a tsquery (as Postgres prints it): quoted lexemes, `!`, `<N>`/`<->`, `&`, `|`, parentheses. */
export function parseTsquery(text: string): TsqueryNode | null {
  let at = 0;
  const skip = () => {
    while (text[at] === ' ') at++;
  };
  const fail = (): never => {
    throw new Error(`unexpected tsquery text at ${at}: ${text}`);
  };
  const operand = (): TsqueryNode => {
    skip();
    if (text[at] === '!') {
      at++;
      return { kind: 'not', arg: operand() };
    }
    if (text[at] === '(') {
      at++;
      const inner = or();
      skip();
      if (text[at] !== ')') fail();
      at++;
      return inner;
    }
    if (text[at] !== "'") fail();
    at++;
    let lexeme = '';
    for (;;) {
      if (at >= text.length) fail();
      const c = text[at]!;
      if (c === "'" && text[at + 1] === "'") {
        lexeme += "'";
        at += 2;
      } else if (c === "'") {
        at++;
        break;
      } else if (c === '\\') {
        lexeme += text[at + 1] ?? fail();
        at += 2;
      } else {
        lexeme += c;
        at++;
      }
    }
    // `:*` (prefix) or `:AB` (weights): a prefix stands for many lexemes, so it gives no pair.
    let exact = true;
    if (text[at] === ':') {
      at++;
      while (/[*A-Da-d]/.test(text[at] ?? '')) {
        if (text[at] === '*') exact = false;
        at++;
      }
    }
    return { kind: 'lexeme', text: lexeme, exact };
  };
  const phrase = (): TsqueryNode => {
    let left = operand();
    for (;;) {
      skip();
      const m = /^<(-|\d+)>/.exec(text.slice(at));
      if (!m) return left;
      at += m[0].length;
      left = { kind: 'phrase', distance: m[1] === '-' ? 1 : Number(m[1]), left, right: operand() };
    }
  };
  /** Operands of `next` joined left to right by `symbol`. */
  const joined = (symbol: '&' | '|', kind: 'and' | 'or', next: () => TsqueryNode) => (): TsqueryNode => {
    let left = next();
    for (;;) {
      skip();
      if (text[at] !== symbol) return left;
      at++;
      left = { kind, left, right: next() };
    }
  };
  const and = joined('&', 'and', phrase);
  const or = joined('|', 'or', and);
  skip();
  if (at >= text.length) return null;
  const tree = or();
  skip();
  if (at < text.length) fail();
  return tree;
}

/**
 * The lexemes a tsquery requires or offers, leaving out negated ones: what a highlight marks. An
 * empty or non-indexable query (`querytree` gives `T`) has none.
 */
export function positiveTerms(text: string): Set<string> {
  const terms = new Set<string>();
  let tree: TsqueryNode | null;
  try {
    tree = parseTsquery(text);
  } catch {
    return terms;
  }
  const visit = (node: TsqueryNode): void => {
    if (node.kind === 'lexeme') terms.add(node.text);
    else if (node.kind !== 'not') {
      visit(node.left);
      visit(node.right);
    }
  };
  if (tree) visit(tree);
  return terms;
}
