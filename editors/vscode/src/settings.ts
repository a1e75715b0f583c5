// The extension's settings (package.json `contributes.configuration`) and
// what they mean for the server. No `vscode` import: tested in plain Node.

/** Reads one setting of the `tensorfit` section, with its default. */
export type SettingReader = <T>(key: string, fallback: T) => T;

/** What the server is told (docs/server.md, "Settings"). */
export interface ServerSettings {
  inlayHints: { enable: boolean };
  timeoutMs: number;
}

export interface Settings {
  /** The command that runs the binary; `tensorfit` on the PATH by default. */
  command: string;
  /** Check PyTorch files (`.py`) too, beside the Python language server. */
  python: boolean;
  server: ServerSettings;
}

/** A document the client sends the server (vscode-languageclient's form). */
export interface DocumentFilter {
  language: string;
}

/**
 * The documents the server sees: Tensor files, and Python files unless
 * turned off. On Python files the server contributes shapes only
 * (diagnostics, hover, inlay hints, quick fixes) and leaves completion,
 * navigation and highlighting to Pylance (docs/editors.md).
 */
export function documentSelector(settings: Settings): DocumentFilter[] {
  return settings.python ? [{ language: 'tensor' }, { language: 'python' }] : [{ language: 'tensor' }];
}

/** The files whose changes on disk the server is told of (imports). */
export function watchedFiles(settings: Settings): string {
  return settings.python ? '**/*.{tensor,py}' : '**/*.tensor';
}

export const DEFAULT_TIMEOUT_MS = 2000;

/**
 * The settings; `bundled` is the binary packaged with the extension (a
 * platform's `.vsix`, docs/editors.md), used when no path is set: the
 * setting wins, then the bundled binary, then `tensorfit` on the PATH.
 */
export function readSettings(read: SettingReader, bundled?: string): Settings {
  const path = read<string>('server.path', '').trim();
  const timeout = read<number>('timeoutMs', DEFAULT_TIMEOUT_MS);
  return {
    command: path !== '' ? path : (bundled ?? 'tensorfit'),
    python: read<boolean>('python.enable', true),
    server: {
      inlayHints: { enable: read<boolean>('inlayHints.enable', true) },
      // The server clamps too; a non-number falls back to the default.
      timeoutMs: Number.isFinite(timeout) ? Math.min(Math.max(Math.round(timeout), 10), 60000) : DEFAULT_TIMEOUT_MS,
    },
  };
}

/** The arguments that start the language server. */
export const SERVER_ARGS = ['lsp'];

/**
 * What a configuration change asks of a running server: a new binary, or
 * Python files turned on or off (the documents the client sends), needs a
 * restart; other settings are sent to the running server.
 */
export function reaction(affects: (section: string) => boolean): 'restart' | 'notify' | 'none' {
  if (affects('tensorfit.server.path') || affects('tensorfit.python.enable')) {
    return 'restart';
  }
  if (affects('tensorfit.inlayHints') || affects('tensorfit.timeoutMs')) {
    return 'notify';
  }
  return 'none';
}
