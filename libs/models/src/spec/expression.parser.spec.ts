import { compileExpression, ExpressionSyntaxError, parseExpression } from './expression.parser';

const evaluate = (text: string, vars: Record<string, number> = {}): number =>
  compileExpression(text, (name) => {
    if (!(name in vars)) throw new Error(`unbound ${name}`);
    return () => vars[name];
  })();

describe('expression language', () => {
  it('follows the usual precedence and associativity', () => {
    expect(evaluate('1 + 2 * 3')).toBe(7);
    expect(evaluate('(1 + 2) * 3')).toBe(9);
    expect(evaluate('2 ^ 3 ^ 2')).toBe(512);
    expect(evaluate('-2 ^ 2')).toBe(-4);
    expect(evaluate('10 - 4 - 3')).toBe(3);
    expect(evaluate('8 / 4 / 2')).toBe(1);
  });

  it('evaluates comparisons, logic, functions and if()', () => {
    expect(evaluate('a >= 3 && b < 1', { a: 3, b: 0 })).toBe(1);
    expect(evaluate('!(a == 2) || 0', { a: 2 })).toBe(0);
    expect(evaluate('if(on, 15, 5)', { on: 0 })).toBe(5);
    expect(evaluate('max(1, a, 3) + min(4, 2)', { a: 7 })).toBe(9);
    expect(evaluate('ln(exp(2)) + sqrt(16) + clamp(12, 0, 10)')).toBeCloseTo(16, 12);
    expect(evaluate('1.5e3 + .5')).toBe(1500.5);
  });

  it('re-reads identifiers on every evaluation', () => {
    const vars = { x: 1 };
    const f = compileExpression('x * 10', () => () => vars.x);
    expect(f()).toBe(10);
    vars.x = 4;
    expect(f()).toBe(40);
  });

  it('lists identifiers and rejects malformed text with a position', () => {
    expect(parseExpression('rate * (service + if(t > 0, t, 0))').identifiers.sort()).toEqual(['rate', 'service', 't']);
    expect(() => parseExpression('1 +')).toThrow(ExpressionSyntaxError);
    expect(() => parseExpression('foo(1)')).toThrow(/unknown function "foo"/);
    expect(() => parseExpression('pow(1)')).toThrow(/pow\(\) takes 2\.\.2 arguments/);
    try {
      parseExpression('a * * b');
    } catch (e) {
      expect((e as ExpressionSyntaxError).position).toBe(4);
    }
  });
});
