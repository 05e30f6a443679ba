import { A2AError, TetherError } from '@a2a-tether/node';
import { shellWord } from '../output/shell-word.js';
import { CliError, EXIT_OF } from './cli-error.js';

/** The error object of Appendix B: `{ error: { code, message, hint, a2aCode } }`. */
export interface ErrorEnvelope {
  error: {
    /** An A2A error name (`TaskNotFoundError` …) or an `A2ACLI_ERR_*` code. */
    code: string;
    message: string;
    hint: string | null;
    a2aCode: string | number | null;
  };
}

/** A failure as the CLI reports it: the envelope and the exit status that agrees with it. */
export interface Failure {
  envelope: ErrorEnvelope;
  exitCode: number;
}

/** What the classification knows of the invocation, to write a useful hint. */
export interface FailureContext {
  /** Credentials were given (--bearer, --api-key or their variables). */
  hasCredentials: boolean;
  /** The agent reference as given. */
  agentRef?: string | undefined;
}

function envelope(code: string, message: string, hint: string | undefined, a2aCode: string | number | null = null): ErrorEnvelope {
  return { error: { code, message, hint: hint ?? null, a2aCode } };
}

function local(code: keyof typeof EXIT_OF, message: string, hint: string | undefined, a2aCode: number | null = null): Failure {
  return { envelope: envelope(code, message, hint, a2aCode), exitCode: EXIT_OF[code] };
}

/** The network cause's code (`ECONNREFUSED`, `ENOTFOUND` …), when there is one. */
function causeCode(error: unknown): string | undefined {
  for (let e: unknown = error, depth = 0; e && depth < 6; e = (e as { cause?: unknown }).cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && /^E[A-Z]+/.test(code)) return code;
  }
  return undefined;
}

/**
 * Maps any error to the envelope and exit code: the agent's A2A errors by their A2A name (exit 1),
 * Tether's local failures to the `A2ACLI_ERR_*` code that fits (unreachable 3, auth 4, timeout 5),
 * anything else to `A2ACLI_ERR_INTERNAL`.
 */
export function classify(error: unknown, context: FailureContext): Failure {
  if (error instanceof CliError) return { envelope: envelope(error.code, error.message, error.hint), exitCode: error.exitCode };
  if (error instanceof A2AError) {
    const name = (error.constructor as { errorName?: string }).errorName ?? error.name;
    const hints: Record<string, string> = {
      TaskNotFoundError: 'check the task id (`tether task list`), and that it belongs to this agent',
      TaskNotCancelableError: 'the task has already finished: `tether task get <taskId>` shows its final state',
      UnsupportedOperationError: 'the agent does not offer this operation; `tether card get` shows what it supports',
      PushNotificationNotSupportedError: 'the agent does not accept push configurations (its card: capabilities.pushNotifications)',
      VersionNotSupportedError: 'try another --a2a-version, or see the versions the card offers with `tether card get`',
      ContentTypeNotSupportedError: 'set the part media type with --media-type after the part flag',
    };
    return {
      envelope: envelope(name === 'A2AError' ? 'A2AError' : name, error.agentMessage || error.message, hints[name] ?? 'rerun with --debug to see the request and the agent\'s answer', error.a2aCode),
      exitCode: 1,
    };
  }
  if (error instanceof TetherError) {
    const where = context.agentRef ? ` at ${context.agentRef}` : '';
    switch (error.code) {
      case 'CARD_NOT_FOUND':
        return local('A2ACLI_ERR_CARD_NOT_FOUND', error.message, `is the agent card reference right? Pass its origin (well-known path appended) or the card's full URL`);
      case 'CARD_INVALID':
        return local('A2ACLI_ERR_CARD_INVALID', error.message, 'run `tether card get --validate` to see what is wrong with the card');
      case 'NETWORK':
      case 'ADDRESS_NOT_ALLOWED': {
        const code = causeCode(error);
        const hint =
          code === 'ECONNREFUSED'
            ? `connection refused: is the agent running${where}?`
            : code === 'ENOTFOUND' || code === 'EAI_AGAIN'
              ? `the host name does not resolve: check the agent URL${where}`
              : `could not reach the agent${where}: check the URL, the network and TLS`;
        return local('A2ACLI_ERR_UNREACHABLE', error.message, hint);
      }
      case 'UNAUTHENTICATED':
        return context.hasCredentials
          ? local('A2ACLI_ERR_AUTH_FAILED', error.message, 'the agent rejected the credentials: check --bearer / --api-key (or A2ACLI_BEARER / A2ACLI_API_KEY)', error.status ?? null)
          : local('A2ACLI_ERR_CREDENTIALS_MISSING', error.message, 'the agent needs credentials: pass --bearer <token> or --api-key <key>, or set A2ACLI_BEARER / A2ACLI_API_KEY', error.status ?? null);
      case 'TIMEOUT':
        return local('A2ACLI_ERR_TIMEOUT', error.message, 'the agent did not answer in time; raise --timeout, or use --async and `tether task get --wait`');
      case 'UNSUPPORTED_OPERATION':
        // The protocol names this condition (checked locally, on the card): its name, not a CLI code.
        return { envelope: envelope('UnsupportedOperationError', error.message, 'the agent does not offer this operation; `tether card get` shows its capabilities and versions'), exitCode: 1 };
      case 'NO_COMPATIBLE_INTERFACE':
        return local('A2ACLI_ERR_INTERNAL', error.message, 'the card offers no interface tether can use with these options: check --transport, and pass --a2a-version 0.3 for a v0.3 agent');
      case 'INVALID_ARGUMENT':
        return local('A2ACLI_ERR_USAGE', error.message, 'see `tether <command> --help`');
      default:
        return local('A2ACLI_ERR_INTERNAL', error.message, error.code === 'RETRY_EXHAUSTED' && error.taskId ? `the task may still run: \`tether task resume ${shellWord(error.taskId)}\` follows it again` : 'rerun with --debug for details', error.status ?? null);
    }
  }
  const message = error instanceof Error ? error.message : String(error);
  return local('A2ACLI_ERR_INTERNAL', message, 'rerun with --debug for details; this is likely a bug in tether');
}
