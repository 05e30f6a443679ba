#!/usr/bin/env node
// The `tether` command: a launcher kept in git, so that installing the workspace links the bin before
// anything is built (a bin pointing into dist/ made every fresh install warn). The CLI is dist/cli.js.
import('../dist/cli.js').catch((error) => {
  if (error && error.code === 'ERR_MODULE_NOT_FOUND' && String(error.message).includes('dist/cli.js')) {
    console.error('tether: the CLI is not built yet; run `npx --yes pnpm@10.34.8 build` in the repository first');
    process.exit(1);
  }
  throw error;
});
