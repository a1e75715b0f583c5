import { test } from 'node:test';
import assert from 'node:assert/strict';

import { activateWith, COMMANDS } from '../activate';
import { FakeClient, fakeVscode, settle } from '../testing/fakes';

function activate(settings: Record<string, unknown> = {}, failure?: Error, bundled?: string) {
  const fake = fakeVscode(settings);
  const clients: FakeClient[] = [];
  const extension = activateWith(
    fake.context as never,
    fake.api,
    (options) => {
      const client = new FakeClient(options, failure);
      clients.push(client);
      return client;
    },
    bundled,
  );
  return { fake, clients, extension };
}

test('activation starts `tensorfit lsp` with the settings as initializationOptions', async () => {
  const { fake, clients, extension } = activate({ 'tensorfit.timeoutMs': 500 });
  await settle();
  assert.equal(clients.length, 1);
  assert.equal(clients[0].options.command, 'tensorfit');
  assert.deepEqual(clients[0].options.args, ['lsp']);
  assert.deepEqual(clients[0].options.initializationOptions, { inlayHints: { enable: true }, timeoutMs: 500 });
  assert.equal(clients[0].started, 1);
  assert.equal(extension.state(), 'running');
  assert.equal(fake.status.text, '$(check) tensorfit');
  assert.equal(fake.status.command, COMMANDS.showOutput);
  assert.ok(fake.status.visible);
});

test('the server path setting names the binary', async () => {
  const { clients } = activate({ 'tensorfit.server.path': ' /opt/tensorfit/bin/tensorfit ' });
  await settle();
  assert.equal(clients[0].options.command, '/opt/tensorfit/bin/tensorfit');
});

test('both commands are registered and do what they say', async () => {
  const { fake, clients, extension } = activate();
  await settle();
  assert.deepEqual([...fake.commands.keys()].sort(), [COMMANDS.restart, COMMANDS.showOutput].sort());
  await fake.commands.get(COMMANDS.showOutput)!();
  assert.equal(fake.output.shown, 1);
  await fake.commands.get(COMMANDS.restart)!();
  assert.equal(clients.length, 2, 'a new client');
  assert.equal(clients[0].stopped, 1, 'the old one stopped');
  assert.equal(extension.client(), clients[1]);
  assert.equal(extension.state(), 'running');
});

test('a server that cannot start is shown as failed with what to do', async () => {
  const { fake, extension } = activate({}, new Error('spawn tensorfit ENOENT'));
  await settle();
  assert.equal(extension.state(), 'failed');
  assert.equal(fake.status.text, '$(error) tensorfit');
  assert.match(fake.status.tooltip, /ENOENT/);
  assert.match(fake.errors[0], /tensorfit\.server\.path/);
  assert.match(fake.output.lines[0], /cannot start `tensorfit lsp`/);
});

test('the status follows the server: a crash shows it stopped', async () => {
  const { fake, clients } = activate();
  await settle();
  clients[0].emit('stopped');
  assert.equal(fake.status.text, '$(debug-stop) tensorfit');
  clients[0].emit('running');
  assert.equal(fake.status.text, '$(check) tensorfit');
});

test('a new time limit is sent to the running server; a new binary restarts it', async () => {
  const { fake, clients } = activate();
  await settle();
  fake.settings['tensorfit.timeoutMs'] = 90000;
  fake.changeConfiguration('tensorfit.timeoutMs');
  await settle();
  assert.deepEqual(clients[0].notifications, [
    {
      method: 'workspace/didChangeConfiguration',
      params: { settings: { tensorfit: { inlayHints: { enable: true }, timeoutMs: 60000 } } },
    },
  ]);
  assert.equal(clients.length, 1);

  fake.settings['tensorfit.server.path'] = '/elsewhere/tensorfit';
  fake.changeConfiguration('tensorfit.server.path');
  await settle();
  await settle();
  assert.equal(clients.length, 2);
  assert.equal(clients[1].options.command, '/elsewhere/tensorfit');

  fake.changeConfiguration('editor.fontSize');
  await settle();
  assert.equal(clients.length, 2);
  assert.equal(clients[1].notifications.length, 0);
});

test('disposing the extension stops the server', async () => {
  const { fake, clients } = activate();
  await settle();
  for (const disposable of fake.context.subscriptions) {
    disposable.dispose();
  }
  await settle();
  assert.equal(clients[0].stopped, 1);
});

test('PyTorch files are sent to the server beside Pylance, unless turned off', async () => {
  const { clients } = activate();
  await settle();
  assert.deepEqual(clients[0].options.documentSelector, [{ language: 'tensor' }, { language: 'python' }]);
  assert.equal(clients[0].options.watchedFiles, '**/*.{tensor,py}');
  const off = activate({ 'tensorfit.python.enable': false });
  await settle();
  assert.deepEqual(off.clients[0].options.documentSelector, [{ language: 'tensor' }]);
  assert.equal(off.clients[0].options.watchedFiles, '**/*.tensor');
});

test('turning Python support on or off restarts the server with the new documents', async () => {
  const { fake, clients } = activate();
  await settle();
  fake.settings['tensorfit.python.enable'] = false;
  fake.changeConfiguration('tensorfit.python.enable');
  await settle();
  assert.equal(clients.length, 2, 'a new client');
  assert.equal(clients[0].stopped, 1);
  assert.deepEqual(clients[1].options.documentSelector, [{ language: 'tensor' }]);
});

test('a bundled binary is used unless the path setting names another', async () => {
  const bundled = activate({}, undefined, '/ext/server/tensorfit');
  await settle();
  assert.equal(bundled.clients[0].options.command, '/ext/server/tensorfit');
  const set = activate({ 'tensorfit.server.path': '/opt/tensorfit' }, undefined, '/ext/server/tensorfit');
  await settle();
  assert.equal(set.clients[0].options.command, '/opt/tensorfit');
});
