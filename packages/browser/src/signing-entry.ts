// @a2a-tether/browser/signing — the same as @a2a-tether/core/signing, so an app that depends only on this
// package can verify signed Agent Cards too: under pnpm, core is not the app's own dependency and
// `@a2a-tether/core/signing` does not resolve from it (docs/design/decisions.md D11).
export * from '@a2a-tether/core/signing';
