// The entry point VS Code loads: the real API and language client.

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

let extension: Extension | undefined;

export function activate(context: vscode.ExtensionContext): Extension {
  extension = activateWith(context, vscode, createClient);
  return extension;
}

export async function deactivate(): Promise<void> {
  await extension?.client()?.stop();
}
