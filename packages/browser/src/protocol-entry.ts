// @a2a-tether/browser/protocol — the same as @a2a-tether/core/protocol, so an app that depends only on
// this package can reach the protocol layer too (docs/design/decisions.md D11).
export * from '@a2a-tether/core/protocol';
