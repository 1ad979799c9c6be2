/**
 * The word-pair condition of a phrase search. The database indexes, for every incident, each pair
 * of lexemes standing one or two positions apart in its search document (`search_pairs`, migration
 * 20261207010000_search_phrase_pairs): a token of the two lexemes joined by as many spaces as
 * their distance. A phrase step `a <-> b` (or `a <2> b`, where a stopword stood between) can only
 * match a document holding the token of its pair, so a search whose every reading holds such a
 * step can first ask the pairs index, which needs no look at the documents, and check the phrase
 * only on what it returns. The condition is necessary, never sufficient: it prunes candidates and
 * cannot change a result.
 */

import { parseTsquery, type TsqueryNode } from './tsquery-text';

/** The longest lexeme, and so token, a tsvector holds (bytes); the index leaves longer tokens out, and so does the query. */
const MAX_TOKEN_BYTES = 2047;
/** The distances the index holds a pair for. */
const MAX_PAIR_DISTANCE = 2;
/**
 * The pairs index has no statistics (sampling them would compute the pairs of every sampled row),
 * so Postgres estimates a pairs condition as it does any tsquery without them: a share of 0.005
 * (`DEFAULT_TS_MATCH_SEL`) per token, multiplied under `&`, combined as independent events under
 * `|`. Past the share of three tokens OR-ed, it guesses so many candidates that an ordered page
 * walks its sort index instead, computing the pairs of every row it passes (the whole table for a
 * phrase nothing matches: measured at 100,000 incidents with four OR-ed tokens and more, as a
 * typo widened to its close words gives). A condition estimated above that is not used; the
 * phrase is then matched on the document alone, as before the pairs index.
 */
const TOKEN_SHARE = 0.005;
const MAX_ESTIMATED_SHARE = 1 - (1 - TOKEN_SHARE) ** 3;

/**
 * The token `search_pairs` gives, alone, for a document whose pairs would not fit in a tsvector
 * (1 MB of lexemes; migration 20261207010000_search_phrase_pairs): one space, which no pair is.
 * Every pairs condition is OR-ed with it, so such a document stays a candidate of every phrase.
 */
export const SEARCH_PAIRS_OVERFLOW = "' '";

/** A formula over pair tokens; `true` where a part of the query requires no pair. */
type Condition = true | { kind: 'token'; token: string } | { kind: 'and' | 'or'; parts: Exclude<Condition, true>[] };

/**
 * The lexemes that can stand at a node's first (`side` left) or last position when it matches
 * inside a phrase, or null when that is not one known set: a lexeme; an OR of lexemes (what the
 * typo widening puts in place of a word); a phrase, whose ends are its operands' outer ends.
 */
function ends(node: TsqueryNode, side: 'left' | 'right'): string[] | null {
  switch (node.kind) {
    case 'lexeme':
      return node.exact ? [node.text] : null;
    case 'or': {
      if (!isLexemeChoice(node)) return null;
      const l = ends(node.left, side);
      const r = ends(node.right, side);
      return l && r ? [...new Set([...l, ...r])] : null;
    }
    case 'phrase':
      return ends(side === 'left' ? node.left : node.right, side);
    default:
      return null;
  }
}

/** An OR whose every branch is a single exact lexeme (all match with width 0 inside a phrase). */
function isLexemeChoice(node: TsqueryNode): boolean {
  if (node.kind === 'lexeme') return node.exact;
  return node.kind === 'or' && isLexemeChoice(node.left) && isLexemeChoice(node.right);
}

const pairToken = (a: string, b: string, distance: number) => `${a}${' '.repeat(distance)}${b}`;

/** `parts` joined by `kind`, flattened, each distinct part once (the english and simple readings often give the same pair). */
function all(kind: 'and' | 'or', parts: Condition[]): Condition {
  if (kind === 'or' && parts.some((p) => p === true)) return true;
  const kept = new Map<string, Exclude<Condition, true>>();
  for (const part of parts) {
    if (part === true) continue;
    for (const p of part.kind === kind ? part.parts : [part]) kept.set(print(p), p);
  }
  if (kept.size === 0) return true;
  return kept.size === 1 ? [...kept.values()][0]! : { kind, parts: [...kept.values()] };
}

/** What a document matching `node` necessarily holds in its pairs. */
function required(node: TsqueryNode): Condition {
  switch (node.kind) {
    case 'lexeme':
    case 'not':
      return true;
    case 'and':
    case 'or':
      return all(node.kind, [required(node.left), required(node.right)]);
    case 'phrase': {
      const parts = [required(node.left), required(node.right)];
      const last = ends(node.left, 'right');
      const first = ends(node.right, 'left');
      if (node.distance >= 1 && node.distance <= MAX_PAIR_DISTANCE && last && first) {
        const tokens = last.flatMap((a) => first.map((b) => pairToken(a, b, node.distance)));
        if (tokens.every((t) => Buffer.byteLength(t, 'utf8') <= MAX_TOKEN_BYTES)) {
          parts.push(all('or', tokens.map((token) => ({ kind: 'token', token }))));
        }
      }
      return all('and', parts);
    }
  }
}

function print(condition: Exclude<Condition, true>): string {
  if (condition.kind === 'token') return `'${condition.token.replace(/\\/g, '\\\\').replace(/'/g, "''")}'`;
  return `(${condition.parts.map(print).join(condition.kind === 'and' ? ' & ' : ' | ')})`;
}

/**
 * The tsquery (text) over `search_pairs` tokens that every document matching `tsquery` (a
 * tsquery's text form) satisfies, or null when the query requires no pair: no phrase, or some
 * reading of it whose phrases are all negated, OR-ed with a plain word, or spaced by more than
 * two positions; or estimated to match too many rows for the planner to use it (TOKEN_SHARE).
 */
export function phrasePairsQuery(tsquery: string): string | null {
  let tree: TsqueryNode | null;
  try {
    tree = parseTsquery(tsquery);
  } catch {
    // A form this reader does not know: the condition only prunes, so the search goes without it.
    return null;
  }
  if (!tree) return null;
  const condition = required(tree);
  return condition === true || estimatedShare(condition) > MAX_ESTIMATED_SHARE * (1 + 1e-9) ? null : print(condition);
}

/** The share of rows Postgres expects a condition to match with no statistics (see TOKEN_SHARE). */
function estimatedShare(condition: Exclude<Condition, true>): number {
  if (condition.kind === 'token') return TOKEN_SHARE;
  const shares = condition.parts.map(estimatedShare);
  return condition.kind === 'and' ? shares.reduce((a, b) => a * b, 1) : 1 - shares.reduce((a, b) => a * (1 - b), 1);
}
