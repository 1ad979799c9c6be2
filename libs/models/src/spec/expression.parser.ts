// Local bindings for globals read in hot loops: test runners that evaluate modules in a vm
// context make every global lookup an order of magnitude slower than a local one.
const Math = globalThis.Math;

/**
 * A small arithmetic language for spec fields and checks: numbers, identifiers,
 * + - * / % ^, comparisons and && || ! (true is 1, false is 0), parentheses and a few
 * functions. It is parsed once into closures; evaluation allocates nothing, because
 * fields referencing parameters are re-evaluated while a model runs.
 */

export type Evaluate = () => number;

export class ExpressionSyntaxError extends Error {
  constructor(
    readonly expression: string,
    readonly position: number,
    detail: string,
  ) {
    super(`${detail} at position ${position} in "${expression}"`);
    this.name = 'ExpressionSyntaxError';
  }
}

type Node =
  | { t: 'num'; v: number }
  | { t: 'id'; name: string }
  | { t: 'un'; op: string; a: Node }
  | { t: 'bin'; op: string; a: Node; b: Node }
  | { t: 'call'; name: string; args: Node[] };

const FUNCTIONS: Record<string, { arity: [number, number]; fn: (...x: number[]) => number }> = {
  min: { arity: [1, 16], fn: (...x) => Math.min(...x) },
  max: { arity: [1, 16], fn: (...x) => Math.max(...x) },
  abs: { arity: [1, 1], fn: (x) => Math.abs(x) },
  sqrt: { arity: [1, 1], fn: (x) => Math.sqrt(x) },
  ln: { arity: [1, 1], fn: (x) => Math.log(x) },
  log: { arity: [1, 1], fn: (x) => Math.log(x) },
  log10: { arity: [1, 1], fn: (x) => Math.log10(x) },
  exp: { arity: [1, 1], fn: (x) => Math.exp(x) },
  pow: { arity: [2, 2], fn: (x, y) => Math.pow(x, y) },
  floor: { arity: [1, 1], fn: (x) => Math.floor(x) },
  ceil: { arity: [1, 1], fn: (x) => Math.ceil(x) },
  round: { arity: [1, 1], fn: (x) => Math.round(x) },
  clamp: { arity: [3, 3], fn: (x, lo, hi) => Math.min(hi, Math.max(lo, x)) },
};

export const EXPRESSION_FUNCTIONS = [...Object.keys(FUNCTIONS), 'if'];

class Parser {
  private pos = 0;
  constructor(private readonly src: string) {}

  parse(): Node {
    const node = this.or();
    this.space();
    if (this.pos < this.src.length) this.fail(`unexpected "${this.src[this.pos]}"`);
    return node;
  }

  private fail(detail: string): never {
    throw new ExpressionSyntaxError(this.src, this.pos, detail);
  }

  private space(): void {
    while (this.pos < this.src.length && /\s/.test(this.src[this.pos])) this.pos++;
  }

  private eat(token: string): boolean {
    this.space();
    if (this.src.startsWith(token, this.pos)) {
      this.pos += token.length;
      return true;
    }
    return false;
  }

  private or(): Node {
    let a = this.and();
    while (this.eat('||')) a = { t: 'bin', op: '||', a, b: this.and() };
    return a;
  }

  private and(): Node {
    let a = this.cmp();
    while (this.eat('&&')) a = { t: 'bin', op: '&&', a, b: this.cmp() };
    return a;
  }

  private cmp(): Node {
    const a = this.add();
    for (const op of ['<=', '>=', '==', '!=', '<', '>']) {
      if (this.eat(op)) return { t: 'bin', op, a, b: this.add() };
    }
    return a;
  }

  private add(): Node {
    let a = this.mul();
    for (;;) {
      if (this.eat('+')) a = { t: 'bin', op: '+', a, b: this.mul() };
      else if (this.eat('-')) a = { t: 'bin', op: '-', a, b: this.mul() };
      else return a;
    }
  }

  private mul(): Node {
    let a = this.unary();
    for (;;) {
      if (this.eat('*')) a = { t: 'bin', op: '*', a, b: this.unary() };
      else if (this.eat('/')) a = { t: 'bin', op: '/', a, b: this.unary() };
      else if (this.eat('%')) a = { t: 'bin', op: '%', a, b: this.unary() };
      else return a;
    }
  }

  private unary(): Node {
    if (this.eat('-')) return { t: 'un', op: '-', a: this.unary() };
    if (this.eat('+')) return this.unary();
    this.space();
    if (this.src[this.pos] === '!' && this.src[this.pos + 1] !== '=') {
      this.pos++;
      return { t: 'un', op: '!', a: this.unary() };
    }
    return this.power();
  }

  private power(): Node {
    const a = this.primary();
    if (this.eat('^')) return { t: 'bin', op: '^', a, b: this.unary() };
    return a;
  }

  private primary(): Node {
    this.space();
    const rest = this.src.slice(this.pos);
    const num = /^(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?/.exec(rest);
    if (num) {
      this.pos += num[0].length;
      return { t: 'num', v: Number(num[0]) };
    }
    const id = /^[A-Za-z_][A-Za-z0-9_]*/.exec(rest);
    if (id) {
      this.pos += id[0].length;
      if (this.eat('(')) {
        const args: Node[] = [];
        if (!this.eat(')')) {
          do args.push(this.or());
          while (this.eat(','));
          if (!this.eat(')')) this.fail('expected ")"');
        }
        return { t: 'call', name: id[0], args };
      }
      return { t: 'id', name: id[0] };
    }
    if (this.eat('(')) {
      const inner = this.or();
      if (!this.eat(')')) this.fail('expected ")"');
      return inner;
    }
    if (this.pos >= this.src.length) this.fail('unexpected end');
    return this.fail(`unexpected "${this.src[this.pos]}"`);
  }
}

/** Parses `text` and lists the identifiers it uses (functions excluded). Throws ExpressionSyntaxError. */
export function parseExpression(text: string): { identifiers: string[] } {
  const node = new Parser(text).parse();
  const ids = new Set<string>();
  const walk = (n: Node): void => {
    switch (n.t) {
      case 'id':
        ids.add(n.name);
        break;
      case 'un':
        walk(n.a);
        break;
      case 'bin':
        walk(n.a);
        walk(n.b);
        break;
      case 'call':
        checkCall(text, n);
        n.args.forEach(walk);
        break;
      default:
        break;
    }
  };
  walk(node);
  return { identifiers: [...ids] };
}

function checkCall(text: string, n: { name: string; args: Node[] }): void {
  if (n.name === 'if') {
    if (n.args.length !== 3) throw new ExpressionSyntaxError(text, 0, 'if() takes 3 arguments');
    return;
  }
  const f = FUNCTIONS[n.name];
  if (!f) throw new ExpressionSyntaxError(text, 0, `unknown function "${n.name}"`);
  if (n.args.length < f.arity[0] || n.args.length > f.arity[1]) {
    throw new ExpressionSyntaxError(text, 0, `${n.name}() takes ${f.arity[0]}..${f.arity[1]} arguments`);
  }
}

/**
 * Compiles `text` into a closure. `resolve` maps an identifier to a getter; it is
 * called once per identifier at compile time, never during evaluation.
 */
export function compileExpression(text: string, resolve: (name: string) => Evaluate): Evaluate {
  const node = new Parser(text).parse();
  const build = (n: Node): Evaluate => {
    switch (n.t) {
      case 'num': {
        const v = n.v;
        return () => v;
      }
      case 'id':
        return resolve(n.name);
      case 'un': {
        const a = build(n.a);
        return n.op === '-' ? () => -a() : () => (a() ? 0 : 1);
      }
      case 'bin': {
        const a = build(n.a);
        const b = build(n.b);
        switch (n.op) {
          case '+':
            return () => a() + b();
          case '-':
            return () => a() - b();
          case '*':
            return () => a() * b();
          case '/':
            return () => a() / b();
          case '%':
            return () => a() % b();
          case '^':
            return () => Math.pow(a(), b());
          case '<':
            return () => (a() < b() ? 1 : 0);
          case '<=':
            return () => (a() <= b() ? 1 : 0);
          case '>':
            return () => (a() > b() ? 1 : 0);
          case '>=':
            return () => (a() >= b() ? 1 : 0);
          case '==':
            return () => (a() === b() ? 1 : 0);
          case '!=':
            return () => (a() !== b() ? 1 : 0);
          case '&&':
            return () => (a() && b() ? 1 : 0);
          default:
            return () => (a() || b() ? 1 : 0);
        }
      }
      case 'call': {
        checkCall(text, n);
        const args = n.args.map(build);
        if (n.name === 'if') {
          const [c, x, y] = args;
          return () => (c() ? x() : y());
        }
        const fn = FUNCTIONS[n.name].fn;
        if (args.length === 1) {
          const [x] = args;
          return () => fn(x());
        }
        if (args.length === 2) {
          const [x, y] = args;
          return () => fn(x(), y());
        }
        return () => fn(...args.map((g) => g()));
      }
    }
  };
  return build(node);
}
