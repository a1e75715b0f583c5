// package.json contributes what the code reads and registers.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

import { COMMANDS } from '../activate';
import { DEFAULT_TIMEOUT_MS, readSettings } from '../settings';

const root = join(__dirname, '../..');
const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const properties = manifest.contributes.configuration.properties;

test('every setting the extension reads is contributed, with the same default', () => {
  const read: Array<[string, unknown]> = [];
  readSettings((key, fallback) => {
    read.push([key, fallback]);
    return fallback;
  });
  assert.ok(read.length >= 3);
  for (const [key, fallback] of read) {
    const property = properties[`tensorfit.${key}`];
    assert.ok(property, `tensorfit.${key} is not contributed`);
    assert.deepEqual(property.default, fallback, `tensorfit.${key}`);
  }
  assert.equal(properties['tensorfit.timeoutMs'].default, DEFAULT_TIMEOUT_MS);
  assert.ok(properties['tensorfit.trace.server'], 'the language client reads it by the client id');
});

test('the extension starts for Tensor and Python files', () => {
  assert.ok(manifest.activationEvents.includes('onLanguage:tensor'));
  assert.ok(manifest.activationEvents.includes('onLanguage:python'));
});

test('every command is contributed', () => {
  const contributed = manifest.contributes.commands.map((c: { command: string }) => c.command).sort();
  assert.deepEqual(contributed, Object.values(COMMANDS).sort());
});

test('the language, its configuration and its grammar are there', () => {
  const [language] = manifest.contributes.languages;
  assert.equal(language.id, 'tensor');
  assert.deepEqual(language.extensions, ['.tensor']);
  assert.ok(existsSync(join(root, language.configuration)));
  const [grammar] = manifest.contributes.grammars;
  assert.equal(grammar.scopeName, 'source.tensor');
  assert.ok(existsSync(join(root, grammar.path)));
  const configuration = JSON.parse(readFileSync(join(root, language.configuration), 'utf8'));
  assert.equal(configuration.comments.lineComment, '//');
  assert.deepEqual(configuration.comments.blockComment, ['/*', '*/']);
});

test('the entry point is what tsc builds', () => {
  assert.equal(manifest.main, './out/extension.js');
  assert.ok(existsSync(join(root, 'out/extension.js')));
});

test('the server’s own semantic token type is declared and themed', () => {
  // crates/tensorfit_lsp/src/navigation.rs: the legend's only non-standard type.
  const [hole] = manifest.contributes.semanticTokenTypes;
  assert.equal(hole.id, 'hole');
  const scopes = manifest.contributes.semanticTokenScopes[0];
  assert.equal(scopes.language, 'tensor');
  assert.ok(scopes.scopes.hole[0].startsWith('constant.language.hole'));
  const legend = readFileSync(join(root, '../../crates/tensorfit_lsp/src/navigation.rs'), 'utf8');
  assert.match(legend, /SemanticTokenType::new\("hole"\)/);
});
