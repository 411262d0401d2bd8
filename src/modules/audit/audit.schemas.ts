import { Type } from '@sinclair/typebox';

export const AUDIT_SCOPES = ['content', 'users', 'hosting', 'security', 'plan', 'other'] as const;
export type AuditScope = (typeof AUDIT_SCOPES)[number];

const ScopeList = Type.Union([Type.String(), Type.Array(Type.String(), { maxItems: 20 })]);

export const AuditQuery = Type.Object({
  scopes: Type.Optional(ScopeList),
  'scopes[]': Type.Optional(ScopeList),
  max_date: Type.Optional(Type.String({ description: "Y-m-d\\TH:i:sP; encode '+' as %2B" })),
  hits: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20 })),
  cursor: Type.Optional(Type.String({ maxLength: 200 })),
});

export const AuditEntrySchema = Type.Object(
  {
    id: Type.Integer(),
    timestamp: Type.String(),
    scope: Type.String(),
    entity: Type.String(),
    entityId: Type.String(),
    operation: Type.String({ description: 'INS, UPD, DEL, ADD or REM' }),
    message: Type.String(),
    details: Type.Object({}, { additionalProperties: true }),
    ipAddress: Type.Union([Type.String(), Type.Null()]),
    user: Type.Union([Type.String(), Type.Null()], { description: '"<id> <email>" of the key’s user' }),
    apiKey: Type.Union([Type.String(), Type.Null()], { description: '"<id> <name>" of the key' }),
  },
  { title: 'AuditEntry' },
);

export const AuditListSchema = Type.Object(
  {
    data: Type.Array(AuditEntrySchema),
    count: Type.Integer({ description: 'Number of hits retrieved' }),
    total: Type.Integer({ description: 'Total number of hits retrievable' }),
    cursor: Type.Union([Type.String(), Type.Null()], { description: 'For the next page; null at the end' }),
  },
  { title: 'AuditList' },
);
