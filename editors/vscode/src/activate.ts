// The extension's behaviour, written against the parts of the VS Code API
// it uses, passed in: `extension.ts` gives the real `vscode` module and
// language client, the tests give stubs.

import type * as vscode from 'vscode';

import {
  documentSelector,
  DocumentFilter,
  reaction,
  readSettings,
  SERVER_ARGS,
  ServerSettings,
  watchedFiles,
} from './settings';
import { ServerState, statusFor } from './status';

/** The part of vscode-languageclient's LanguageClient used here. */
export interface Client {
  start(): Promise<void>;
  stop(): Promise<void>;
  sendNotification(method: string, params: unknown): Promise<void>;
  /** `running` when the server is up, `stopped` when it is gone. */
  onStateChange(listener: (state: 'starting' | 'running' | 'stopped') => void): void;
}

export interface ClientOptions {
  command: string;
  args: string[];
  initializationOptions: ServerSettings;
  outputChannel: vscode.OutputChannel;
  documentSelector: DocumentFilter[];
  /** A glob of the files whose changes on disk the server is told of. */
  watchedFiles: string;
}

export type ClientFactory = (options: ClientOptions) => Client;

/** The subset of the `vscode` module the extension uses. */
export type VscodeApi = Pick<typeof vscode, 'window' | 'commands' | 'workspace' | 'StatusBarAlignment' | 'ThemeColor'>;

export interface Extension {
  /** The client of the running server (a new one after each restart). */
  client(): Client | undefined;
  restart(): Promise<void>;
  state(): ServerState;
}

export const COMMANDS = {
  restart: 'tensorfit.restartServer',
  showOutput: 'tensorfit.showOutput',
};

export function activateWith(
  context: vscode.ExtensionContext,
  api: VscodeApi,
  createClient: ClientFactory,
  /** The binary packaged with the extension, if this `.vsix` has one. */
  bundledServer?: string,
): Extension {
  const output = api.window.createOutputChannel('tensorfit');
  const status = api.window.createStatusBarItem(api.StatusBarAlignment.Left, 0);
  status.command = COMMANDS.showOutput;
  context.subscriptions.push(output, status);

  let client: Client | undefined;
  let state: ServerState = 'stopped';
  const settings = () =>
    readSettings((key, fallback) => api.workspace.getConfiguration('tensorfit').get(key, fallback), bundledServer);

  function show(next: ServerState, detail?: string) {
    state = next;
    const text = statusFor(next, detail);
    status.text = text.text;
    status.tooltip = text.tooltip;
    status.backgroundColor = text.error ? new api.ThemeColor('statusBarItem.errorBackground') : undefined;
    status.show();
  }

  async function start() {
    const current = settings();
    const started = createClient({
      command: current.command,
      args: SERVER_ARGS,
      initializationOptions: current.server,
      outputChannel: output,
      documentSelector: documentSelector(current),
      watchedFiles: watchedFiles(current),
    });
    client = started;
    started.onStateChange((s) => {
      if (client === started) {
        show(s);
      }
    });
    show('starting');
    try {
      await started.start();
      show('running');
    } catch (error) {
      const detail = error instanceof Error ? error.message : String(error);
      output.appendLine(`tensorfit: cannot start \`${current.command} ${SERVER_ARGS.join(' ')}\`: ${detail}`);
      show('failed', detail);
      void api.window.showErrorMessage(
        `tensorfit: the language server could not start (${detail}). Set "tensorfit.server.path" to the tensorfit binary.`,
      );
    }
  }

  async function stop() {
    const running = client;
    client = undefined;
    if (running) {
      // A server that never started cannot be stopped; nothing to undo.
      await running.stop().catch(() => undefined);
    }
    show('stopped');
  }

  async function restart() {
    await stop();
    await start();
  }

  context.subscriptions.push(
    api.commands.registerCommand(COMMANDS.restart, restart),
    api.commands.registerCommand(COMMANDS.showOutput, () => output.show(true)),
    api.workspace.onDidChangeConfiguration((event) => {
      switch (reaction((section) => event.affectsConfiguration(section))) {
        case 'restart':
          void restart();
          break;
        case 'notify':
          void client?.sendNotification('workspace/didChangeConfiguration', {
            settings: { tensorfit: settings().server },
          });
          break;
        case 'none':
          break;
      }
    }),
    { dispose: () => void stop() },
  );

  void start();
  return { client: () => client, restart, state: () => state };
}
