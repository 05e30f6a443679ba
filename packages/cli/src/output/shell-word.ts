/**
 * `value` as one POSIX shell word, for the commands the CLI prints for the user to run: as is when it
 * is plain, else single-quoted. A task id is the agent's choice: `; rm -rf ~` stays one quoted word.
 */
export function shellWord(value: string): string {
  return /^[\w@%+=:,./-]+$/.test(value) ? value : `'${value.replace(/'/g, "'\\''")}'`;
}
