import { describe, expect, it } from 'vitest';
import { distrustOf, MAX_ENV_FILE_BYTES, type EnvFileFacts } from './env-file-trust.js';

const USER = 1000;
const file = (facts: Partial<EnvFileFacts>): EnvFileFacts => ({ uid: USER, mode: 0o100600, isFile: true, size: 40, ...facts });

describe('distrustOf: which .env files are read', () => {
  it('the user\'s own file that only the user can write: read, whatever others may read', () => {
    for (const mode of [0o100600, 0o100400, 0o100644, 0o100640, 0o100755]) expect(distrustOf(file({ mode }), USER), mode.toString(8)).toBeUndefined();
  });

  it('root\'s file: read (root can change the user\'s files anyway)', () => {
    expect(distrustOf(file({ uid: 0, mode: 0o100644 }), USER)).toBeUndefined();
  });

  it('another user\'s file: refused, naming its owner and the user', () => {
    expect(distrustOf(file({ uid: 65534, mode: 0o100644 }), USER)).toBe('owned by uid 65534, not by you (uid 1000) or root');
    expect(distrustOf(file({ uid: 1001, mode: 0o100600 }), USER)).toBe('owned by uid 1001, not by you (uid 1000) or root');
  });

  it('writable by others or by the group: refused, with the mode', () => {
    expect(distrustOf(file({ mode: 0o100666 }), USER)).toBe('others can write it (mode 0666)');
    expect(distrustOf(file({ mode: 0o100602 }), USER)).toBe('others can write it (mode 0602)');
    expect(distrustOf(file({ mode: 0o100620 }), USER)).toBe('its group can write it (mode 0620)');
    expect(distrustOf(file({ uid: 0, mode: 0o100664 }), USER)).toBe('its group can write it (mode 0664)');
  });

  it('not a regular file, or too large: refused, on every platform', () => {
    expect(distrustOf(file({ isFile: false }), USER)).toBe('not a regular file');
    expect(distrustOf(file({ isFile: false }), undefined)).toBe('not a regular file');
    expect(distrustOf(file({ size: MAX_ENV_FILE_BYTES + 1 }), undefined)).toBe(`larger than ${MAX_ENV_FILE_BYTES} bytes`);
    expect(distrustOf(file({ size: MAX_ENV_FILE_BYTES }), USER)).toBeUndefined();
  });

  it('no uid (Windows): owner and mode are not checked', () => {
    expect(distrustOf(file({ uid: 65534, mode: 0o100666 }), undefined)).toBeUndefined();
  });
});
