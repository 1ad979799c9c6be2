import { phrasePairsQuery } from './search-pairs';

describe('phrasePairsQuery', () => {
  it('requires the pair of each adjacent step of a phrase, in every reading', () => {
    expect(phrasePairsQuery(`'partial' <-> 'outag' | 'partial' <-> 'outage' <-> 'after'`)).toBe(`('partial outag' | ('partial outage' & 'outage after'))`);
    expect(phrasePairsQuery(`'a' <-> 'b' <-> 'c' | 'a' <-> 'b' <-> 'c'`)).toBe(`('a b' & 'b c')`);
  });

  it('writes a step two positions apart (a stopword between) with two spaces, and requires nothing for wider steps', () => {
    expect(phrasePairsQuery(`'degrad' <2> 'featur'`)).toBe(`'degrad  featur'`);
    expect(phrasePairsQuery(`'outag' <3> 'fix'`)).toBeNull();
    expect(phrasePairsQuery(`'a' <3> 'b' <-> 'c'`)).toBe(`'b c'`);
  });

  it('requires nothing where a reading has no phrase, a phrase is negated, or OR-ed with a plain word', () => {
    expect(phrasePairsQuery(`'timeout' & 'retri' | 'timeout' & 'retry'`)).toBeNull();
    expect(phrasePairsQuery(`!( 'a' <-> 'b' ) & 'c'`)).toBeNull();
    expect(phrasePairsQuery(`'a' <-> 'b' | 'c'`)).toBeNull();
    expect(phrasePairsQuery(`'outag' <2> 'fix' | 'outage' <3> 'fix'`)).toBeNull();
    expect(phrasePairsQuery('')).toBeNull();
  });

  it('keeps a phrase beside other words and exclusions', () => {
    expect(phrasePairsQuery(`'a' <-> 'b' & !'c' & 'd'`)).toBe(`'a b'`);
    expect(phrasePairsQuery(`( 'a' <-> 'b' | 'c' <-> 'd' ) & 'e'`)).toBe(`('a b' | 'c d')`);
  });

  it('offers every pair of a word widened to its close words', () => {
    expect(phrasePairsQuery(`'x' <-> ( 'parsiod' | 'parsoid' )`)).toBe(`('x parsiod' | 'x parsoid')`);
    // Two steps each widened: their AND is narrow enough for the planner to use the index.
    expect(phrasePairsQuery(`'x' <-> ( 'a' | 'b' | 'c' | 'd' ) <-> 'y'`)).toBe(`(('x a' | 'x b' | 'x c' | 'x d') & ('a y' | 'b y' | 'c y' | 'd y'))`);
  });

  it('gives no condition that Postgres would estimate wider than three tokens OR-ed', () => {
    expect(phrasePairsQuery(`'x' <-> ( 'a' | 'b' | 'c' )`)).toBe(`('x a' | 'x b' | 'x c')`);
    expect(phrasePairsQuery(`'x' <-> ( 'a' | 'b' | 'c' | 'd' )`)).toBeNull();
    expect(phrasePairsQuery(`'a' <-> 'b' | 'c' <-> 'd' | 'e' <-> 'f' | 'g' <-> 'h'`)).toBeNull();
    expect(phrasePairsQuery(`('a' <-> 'b' & 'c' <-> 'd') | ('e' <-> 'f' & 'g' <-> 'h')`)).toBe(`(('a b' & 'c d') | ('e f' & 'g h'))`);
  });

  it('takes the inner ends of nested phrases and gives no pair for a prefix or an AND inside a phrase', () => {
    expect(phrasePairsQuery(`( 'a' <-> 'b' ) <-> ( 'c' <-> 'd' )`)).toBe(`('a b' & 'c d' & 'b c')`);
    expect(phrasePairsQuery(`'a':* <-> 'b'`)).toBeNull();
    expect(phrasePairsQuery(`'a' <-> ( 'b' & 'c' )`)).toBeNull();
  });

  it('reads and writes quotes and backslashes in lexemes', () => {
    expect(phrasePairsQuery(`'it''s' <-> 'a\\\\b'`)).toBe(`'it''s a\\\\b'`);
  });

  it('requires nothing of a query text it cannot read, rather than failing the search', () => {
    expect(phrasePairsQuery(`'a' <-> 'b' ~ 'c'`)).toBeNull();
    expect(phrasePairsQuery(`'a' <-> ('b'`)).toBeNull();
  });

  it('leaves out a pair longer than a lexeme may be, as the index does', () => {
    const long = 'x'.repeat(1500);
    expect(phrasePairsQuery(`'${long}' <-> '${long}'`)).toBeNull();
  });
});
