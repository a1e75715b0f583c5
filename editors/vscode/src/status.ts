// What the status bar item says in each state of the server.

export type ServerState = 'starting' | 'running' | 'stopped' | 'failed';

export interface StatusText {
  text: string;
  tooltip: string;
  /** Shown with the error background. */
  error: boolean;
}

export function statusFor(state: ServerState, detail?: string): StatusText {
  switch (state) {
    case 'starting':
      return { text: '$(sync~spin) tensorfit', tooltip: 'tensorfit: starting the language server', error: false };
    case 'running':
      return { text: '$(check) tensorfit', tooltip: 'tensorfit: checking shapes (click for the output)', error: false };
    case 'stopped':
      return { text: '$(debug-stop) tensorfit', tooltip: 'tensorfit: the language server stopped (run "tensorfit: Restart the language server")', error: false };
    case 'failed':
      return {
        text: '$(error) tensorfit',
        tooltip: `tensorfit: the language server could not start${detail ? `: ${detail}` : ''}. Set "tensorfit.server.path" to the tensorfit binary.`,
        error: true,
      };
  }
}
