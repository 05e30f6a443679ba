/** The effective defaults and the configuration rules, shown after `tether --help`. */
export const DEFAULTS_HELP = `
Defaults (each overridable by its flag):
  transport        the first interface of the card that tether speaks (--transport)
  completion       wait until the task ends or pauses (--async returns at once)
  output           text (-o json; --stream for live events / JSON Lines)
  detail           concise (--verbose)
  protocol         A2A 1.0; 0.3 only with --a2a-version 0.3
  TLS              verified (there is no --insecure)
  poll interval    2s (--poll-interval); timeout: none (--timeout)

Configuration: A2ACLI_<FLAG> variables (A2ACLI_AGENT_CARD, A2ACLI_BEARER, A2ACLI_OUTPUT, ...) and .env files:
  flag > environment > local .env (nearest walking up, or --config <path>) > ~/.config/a2a-cli/.env > default.
  --stream, --help and --version are never read from the environment or a file.

Exit codes: 0 done (whatever the task's outcome), 1 failure, 2 usage, 3 unreachable / no card,
  4 credentials missing or rejected, 5 timeout.

Tether extensions (not in the a2a-cli specification): task resume, task list --local, --store, and
  send / task subscribe following through dropped connections. Docs: docs/cli.md.
`;

/** Extra help of `task resume`. */
export const taskFollowHelp = `
Tasks are recorded in the local store (--store) by every send; task resume <taskId> picks one up in a
later process. Without -a, the agent is the one the record names. Credentials are never stored.
`;
