import type { KeyAuth } from '../auth/keys.service.ts';
import type { Permission } from '../auth/permissions.ts';
import type { OperationId } from './operations.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** the operation of the API this route is; its rate limit and counter come from it */
    operation?: OperationId;
    /** the permission the key must hold */
    permission?: Permission;
    /** true for the one operation callable from browsers (search content) */
    crossOrigin?: boolean;
    /** 'json': the body must be application/json; otherwise the route takes no body */
    body?: 'json' | 'custom';
    /** the answer holds a secret shown once: an Idempotency-Key keeps it encrypted for its replay */
    secretAnswer?: boolean;
  }
  interface FastifyRequest {
    /** the key of the request and what it may do, once the pipeline has resolved it */
    auth: KeyAuth | null;
  }
}

export {};
