// `tensorfit check --format sarif` validated against the SARIF 2.1.0
// schema (the OASIS rtm.5 schema, as shipped by @microsoft/jest-sarif).
// Run by scripts/test.sh after the Rust tests have built the binary:
//   TENSORFIT_BIN=target/debug/tensorfit npm test
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import Ajv from 'ajv-draft-04';
import addFormats from 'ajv-formats';

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, '../..');
const bin = process.env.TENSORFIT_BIN ?? join(root, 'target/debug/tensorfit');
const require = createRequire(import.meta.url);
const schema = JSON.parse(
  readFileSync(require.resolve('@microsoft/jest-sarif/lib/schemas/sarif-2.1.0-rtm.5.json'), 'utf8'),
);
// The schema has a pattern that is not valid with the `u` flag.
const ajv = new Ajv({ allErrors: true, strict: false, unicodeRegExp: false });
addFormats(ajv);
const validate = ajv.compile(schema);

/** The SARIF log of checking `paths`, run from the repository root. */
function sarif(paths) {
  let stdout;
  try {
    stdout = execFileSync(bin, ['check', '--format', 'sarif', ...paths], { cwd: root, encoding: 'utf8' });
  } catch (error) {
    // Exit status 1 means errors were found: the report is still written.
    assert.equal(error.status, 1, `tensorfit failed: ${error.stderr}`);
    stdout = error.stdout;
  }
  return JSON.parse(stdout);
}

function assertValid(log) {
  const valid = validate(log);
  assert.ok(valid, ajv.errorsText(validate.errors, { separator: '\n' }));
}

test('the binary exists (build it with cargo first)', () => {
  assert.ok(existsSync(bin), `no ${bin}`);
});

const inputs = {
  'the corpus': [join(root, '../shared/corpus')],
  'the examples': ['examples'],
  'the engine test programs': ['tests/programs'],
  'a file of name errors with related places': ['crates/tensorfit/tests/snapshots/human_report.tensor'],
};

// The shared corpus sits beside a checkout, not in it: a plain clone skips
// it (unless TENSORFIT_REQUIRE_CORPUS asks for it).
const optional = new Set(process.env.TENSORFIT_REQUIRE_CORPUS ? [] : ['the corpus']);

for (const [name, paths] of Object.entries(inputs)) {
  const present = paths.filter((p) => existsSync(resolve(root, p)));
  const skip = optional.has(name) && present.length === 0 && `${paths} is not there`;
  test(`${name}: valid SARIF 2.1.0`, { skip }, () => {
    assert.ok(present.length > 0, `none of ${paths} exists`);
    const log = sarif(present);
    assertValid(log);
    assert.equal(log.runs.length, 1);
    assert.equal(log.runs[0].tool.driver.name, 'tensorfit');
  });
}

test('errors become results with their rules and related places', () => {
  const log = sarif(['crates/tensorfit/tests/snapshots/human_report.tensor']);
  const { results, tool } = log.runs[0];
  assert.ok(results.length >= 5);
  for (const result of results) {
    assert.equal(tool.driver.rules[result.ruleIndex].id, result.ruleId);
  }
  const redeclared = results.find((r) => r.ruleId === 'redeclared-name');
  assert.equal(redeclared.level, 'error');
  assert.equal(redeclared.relatedLocations[0].message.text, '`C` is first declared here');
});

test('the validator rejects what is not SARIF', () => {
  const log = sarif(['crates/tensorfit/tests/snapshots/human_report.tensor']);
  log.runs[0].results[0].level = 'fatal';
  assert.equal(validate(log), false);
  delete log.version;
  assert.equal(validate(log), false);
});
