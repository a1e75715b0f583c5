// Stubs of the VS Code API and of the language client, recording what the
// extension does with them.

import type { Client, ClientOptions, VscodeApi } from '../activate';

export class FakeClient implements Client {
  started = 0;
  stopped = 0;
  notifications: Array<{ method: string; params: unknown }> = [];
  private listeners: Array<(state: 'starting' | 'running' | 'stopped') => void> = [];

  constructor(readonly options: ClientOptions, private readonly failure?: Error) {}

  async start(): Promise<void> {
    this.started += 1;
    if (this.failure) {
      throw this.failure;
    }
  }

  async stop(): Promise<void> {
    this.stopped += 1;
  }

  async sendNotification(method: string, params: unknown): Promise<void> {
    this.notifications.push({ method, params });
  }

  onStateChange(listener: (state: 'starting' | 'running' | 'stopped') => void): void {
    this.listeners.push(listener);
  }

  /** The server process changes state (e.g. it crashed). */
  emit(state: 'starting' | 'running' | 'stopped'): void {
    this.listeners.forEach((l) => l(state));
  }
}

export interface Fake {
  api: VscodeApi;
  context: { subscriptions: Array<{ dispose(): unknown }> };
  settings: Record<string, unknown>;
  commands: Map<string, (...args: unknown[]) => unknown>;
  status: { text: string; tooltip: string; command?: string; backgroundColor?: unknown; visible: boolean };
  output: { lines: string[]; shown: number };
  errors: string[];
  /** Fires a configuration change of these sections. */
  changeConfiguration(...sections: string[]): void;
}

export function fakeVscode(settings: Record<string, unknown> = {}): Fake {
  const commands = new Map<string, (...args: unknown[]) => unknown>();
  const status = { text: '', tooltip: '', visible: false } as Fake['status'];
  const output = { lines: [] as string[], shown: 0 };
  const errors: string[] = [];
  const configurationListeners: Array<(e: { affectsConfiguration(s: string): boolean }) => void> = [];
  const disposable = { dispose() {} };
  const api = {
    window: {
      createOutputChannel: () => ({
        appendLine: (line: string) => output.lines.push(line),
        show: () => {
          output.shown += 1;
        },
        dispose() {},
      }),
      createStatusBarItem: () =>
        Object.assign(status, {
          show: () => {
            status.visible = true;
          },
          dispose() {},
        }),
      showErrorMessage: async (message: string) => {
        errors.push(message);
        return undefined;
      },
    },
    commands: {
      registerCommand: (name: string, run: (...args: unknown[]) => unknown) => {
        commands.set(name, run);
        return disposable;
      },
    },
    workspace: {
      getConfiguration: (section: string) => ({
        get: (key: string, fallback: unknown) => {
          const value = settings[`${section}.${key}`];
          return value === undefined ? fallback : value;
        },
      }),
      onDidChangeConfiguration: (listener: (e: { affectsConfiguration(s: string): boolean }) => void) => {
        configurationListeners.push(listener);
        return disposable;
      },
    },
    StatusBarAlignment: { Left: 1, Right: 2 },
    ThemeColor: class {
      constructor(readonly id: string) {}
    },
  } as unknown as VscodeApi;
  return {
    api,
    context: { subscriptions: [] },
    settings,
    commands,
    status,
    output,
    errors,
    changeConfiguration(...sections: string[]) {
      const event = {
        affectsConfiguration: (s: string) => sections.some((changed) => changed === s || changed.startsWith(`${s}.`)),
      };
      configurationListeners.forEach((l) => l(event));
    },
  };
}

/** Lets pending promise callbacks run. */
export const settle = () => new Promise((resolve) => setImmediate(resolve));
