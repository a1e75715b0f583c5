// The TextMate grammar: every pattern compiles, every keyword of the
// tree-sitter grammar's highlight queries is highlighted as one, and a few
// lines of a real program get the scopes users expect.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

interface Pattern {
  name?: string;
  match?: string;
  begin?: string;
  end?: string;
  include?: string;
  captures?: Record<string, { name: string }>;
  patterns?: Pattern[];
}

const root = join(__dirname, '../..');
const grammar = JSON.parse(readFileSync(join(root, 'syntaxes/tensor.tmLanguage.json'), 'utf8'));

/** The top-level patterns in order, includes expanded. */
function flatten(patterns: Pattern[]): Pattern[] {
  return patterns.flatMap((p) => {
    if (p.include) {
      return flatten([grammar.repository[p.include.slice(1)]]);
    }
    if (p.patterns && !p.begin) {
      return flatten(p.patterns);
    }
    return [p];
  });
}
const patterns = flatten(grammar.patterns);

/** The scope of the token at `offset` of `line`: the first pattern, in
 * order, that matches there (what a TextMate tokenizer does). */
function scopeAt(line: string, offset: number): string | undefined {
  for (let start = 0; start <= offset; ) {
    let best: { index: number; length: number; scope?: string; pattern: Pattern; m: RegExpExecArray } | undefined;
    for (const pattern of patterns) {
      const source = pattern.match ?? pattern.begin;
      if (!source) continue;
      const regex = new RegExp(source, 'g');
      regex.lastIndex = start;
      const m = regex.exec(line);
      if (m && (!best || m.index < best.index)) {
        best = { index: m.index, length: m[0].length || 1, scope: pattern.name, pattern, m };
      }
    }
    if (!best || best.index > offset) return undefined;
    if (offset < best.index + best.length) {
      const captures = best.pattern.captures;
      if (captures) {
        let at = best.index;
        for (let i = 1; i < best.m.length; i++) {
          const group = best.m[i] ?? '';
          const index = line.indexOf(group, at);
          if (offset >= index && offset < index + group.length) return captures[String(i)]?.name;
          at = index + group.length;
        }
      }
      return best.scope;
    }
    start = best.index + best.length;
  }
  return undefined;
}

test('every pattern compiles', () => {
  const all: string[] = [];
  const walk = (p: Pattern) => {
    for (const key of ['match', 'begin', 'end'] as const) if (p[key]) all.push(p[key]!);
    p.patterns?.forEach(walk);
  };
  Object.values(grammar.repository as Record<string, Pattern>).forEach(walk);
  assert.ok(all.length > 20);
  for (const source of all) {
    assert.doesNotThrow(() => new RegExp(source), source);
  }
});

test('the keywords of the tree-sitter highlight queries are keywords here', () => {
  const queries = readFileSync(join(root, '../../tree-sitter-tensor/queries/highlights.scm'), 'utf8');
  const keywords = new Set<string>();
  for (const line of queries.split('\n')) {
    if (/@keyword/.test(line) || /^\s*"[a-z]+"/.test(line) || /^\s*\[?\s*"[a-z]+"(\s+"[a-z]+")*\s*\]?/.test(line)) {
      for (const m of line.matchAll(/"([a-z]+)"/g)) keywords.add(m[1]);
    }
  }
  assert.ok(keywords.size >= 15, [...keywords].join(' '));
  for (const keyword of keywords) {
    const scope = scopeAt(`${keyword} x`, 0);
    assert.match(scope ?? 'none', /^keyword/, `${keyword} is ${scope}`);
  }
});

test('a model line gets the scopes users expect', () => {
  const line = 'let m = max_pool2d(c, kernel_size: 2) |-> [batch, 5, __]  //~ error: 16';
  const at = (text: string) => scopeAt(line, line.indexOf(text));
  assert.equal(at('let'), 'keyword.declaration.tensor');
  assert.equal(at('m ='), 'variable.other.declaration.tensor');
  assert.equal(at('max_pool2d'), 'entity.name.function.call.tensor');
  assert.equal(at('2)'), 'constant.numeric.integer.tensor');
  assert.equal(at('|->'), 'keyword.operator.claim.tensor');
  assert.equal(at('__'), 'constant.language.hole.tensor');
  assert.equal(at('//~'), 'comment.line.double-slash.expectation.tensor');
  const types = 'fn f(x: Tensor[b, 8]) -> Tensor[b, 4] {';
  assert.equal(scopeAt(types, types.indexOf('f(')), 'entity.name.function.tensor');
  assert.equal(scopeAt(types, types.indexOf('Tensor')), 'support.type.builtin.tensor');
  assert.equal(scopeAt(types, types.indexOf('->')), 'keyword.operator.arrow.tensor');
  const layer = 'conv = Conv2d(in_channels: 3, out_channels: 5)';
  assert.equal(scopeAt(layer, layer.indexOf('Conv2d')), 'entity.name.type.layer.tensor');
});
