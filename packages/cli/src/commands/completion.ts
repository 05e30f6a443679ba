import type { Command } from 'commander';
import { CliError } from '../errors/cli-error.js';

/** The words that may follow each command path (`""`, `task`, `task push-config` …): subcommands and flags. */
function wordsByPath(program: Command): Map<string, string[]> {
  const globals = program.options.map((o) => o.long ?? o.short ?? '').filter((w) => w !== '');
  const out = new Map<string, string[]>();
  const walk = (command: Command, path: string): void => {
    const subcommands = command.commands.map((c) => c.name());
    const flags = command === program ? [] : command.options.map((o) => o.long ?? o.short ?? '').filter((w) => w !== '');
    out.set(path, [...subcommands, ...flags, ...globals]);
    for (const sub of command.commands) walk(sub, path === '' ? sub.name() : `${path} ${sub.name()}`);
  };
  walk(program, '');
  return out;
}

/** A bash completion function for `tether` (zsh loads it through bashcompinit). */
function bashScript(program: Command): string {
  const cases = [...wordsByPath(program)].map(([path, words]) => `    "${path}") echo "${words.join(' ')}" ;;`).join('\n');
  return `# tether completion (bash; zsh: autoload -U +X bashcompinit && bashcompinit, then source this)
_tether_words() {
  case "$1" in
${cases}
  esac
}
_tether_complete() {
  local cur="\${COMP_WORDS[COMP_CWORD]}" path="" w
  for w in "\${COMP_WORDS[@]:1:COMP_CWORD-1}"; do
    [[ "$w" == -* ]] && continue
    case " $(_tether_words "$path") " in *" $w "*) path="\${path:+$path }$w" ;; esac
  done
  COMPREPLY=( $(compgen -W "$(_tether_words "$path")" -- "$cur") )
}
complete -F _tether_complete tether
`;
}

/** `completion <shell>`: prints a completion script for bash or zsh on stdout. */
export function completion(program: Command, shell: string): string {
  switch (shell) {
    case 'bash':
      return bashScript(program);
    case 'zsh':
      return `autoload -U +X bashcompinit && bashcompinit\n${bashScript(program)}`;
    default:
      throw CliError.usage(`completion ${shell}: unsupported shell`, 'use bash or zsh, e.g. source <(tether completion bash)');
  }
}
