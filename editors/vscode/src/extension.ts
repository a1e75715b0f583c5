// The entry point VS Code loads: the real API and language client.

import * as fs from 'fs';
import * as path from 'path';
import * as vscode from 'vscode';
import { LanguageClient, State, TransportKind } from 'vscode-languageclient/node';

import { activateWith, Client, ClientOptions, Extension } from './activate';

function createClient(options: ClientOptions): Client {
  const client = new LanguageClient(
    'tensorfit',
    'tensorfit',
    { command: options.command, args: options.args, transport: TransportKind.stdio },
    {
      documentSelector: options.documentSelector,
      initializationOptions: options.initializationOptions,
      outputChannel: options.outputChannel,
      // Imported files change on disk: the server reads them again.
      synchronize: { fileEvents: vscode.workspace.createFileSystemWatcher(options.watchedFiles) },
    },
  );
  return {
    start: () => client.start(),
    stop: () => client.stop(),
    sendNotification: (method, params) => client.sendNotification(method, params),
    onStateChange: (listener) => {
      client.onDidChangeState((event) => {
        const names = { [State.Starting]: 'starting', [State.Running]: 'running', [State.Stopped]: 'stopped' } as const;
        listener(names[event.newState]);
      });
    },
  };
}

/**
 * `server/tensorfit` inside the extension, when this is a platform's
 * `.vsix` that bundles it (editors/vscode/scripts/package-with-server.sh),
 * made executable in case unpacking lost the bit.
 */
function bundledServer(context: vscode.ExtensionContext): string | undefined {
  const binary = path.join(context.extensionPath, 'server', process.platform === 'win32' ? 'tensorfit.exe' : 'tensorfit');
  if (!fs.existsSync(binary)) {
    return undefined;
  }
  try {
    fs.chmodSync(binary, 0o755);
  } catch {
    // Read-only install: it keeps the mode it was unpacked with.
  }
  return binary;
}

let extension: Extension | undefined;

export function activate(context: vscode.ExtensionContext): Extension {
  extension = activateWith(context, vscode, createClient, bundledServer(context));
  return extension;
}

export async function deactivate(): Promise<void> {
  await extension?.client()?.stop();
}
