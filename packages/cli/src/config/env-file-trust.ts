/** What the trust rule reads of a `.env` file: from the descriptor that is then read, so it cannot be swapped in between. */
export interface EnvFileFacts {
  /** The owner's uid. */
  uid: number;
  /** The mode bits (`stat.mode`). */
  mode: number;
  /** A regular file (not a FIFO, a device, a socket). */
  isFile: boolean;
  size: number;
}

/** A `.env` file larger than this is not read (they are a few lines). */
export const MAX_ENV_FILE_BYTES = 1024 * 1024;

const octal = (mode: number): string => `0${(mode & 0o7777).toString(8).padStart(3, '0')}`;

/**
 * Why a `.env` file must not be read, or `undefined` when it may be. A file can point the CLI at an
 * agent, and the user's credentials go to that agent: so only a regular file of sane size, owned by the
 * user (`user`, the uid running the CLI) or by root, that neither its group nor others can write. A file
 * planted in a shared directory (/tmp, a team folder) is someone else's, or writable by them. `user`
 * is `undefined` where files have no POSIX owner and mode (Windows): then only the kind and size are
 * checked.
 */
export function distrustOf(facts: EnvFileFacts, user: number | undefined): string | undefined {
  if (!facts.isFile) return 'not a regular file';
  if (facts.size > MAX_ENV_FILE_BYTES) return `larger than ${MAX_ENV_FILE_BYTES} bytes`;
  if (user === undefined) return undefined;
  if (facts.uid !== user && facts.uid !== 0) return `owned by uid ${facts.uid}, not by you (uid ${user}) or root`;
  if ((facts.mode & 0o002) !== 0) return `others can write it (mode ${octal(facts.mode)})`;
  if ((facts.mode & 0o020) !== 0) return `its group can write it (mode ${octal(facts.mode)})`;
  return undefined;
}
