// @a2a-tether/node/grpc — the gRPC binding of A2A v1.0. Its own entry, so that `@a2a-tether/node` never
// loads @grpc/grpc-js or @bufbuild/protobuf (optional peer dependencies, needed only here).
export { grpcBinding, grpcTarget } from './grpc/grpc-binding.js';
export type { GrpcBindingOptions } from './grpc/grpc-binding.js';
