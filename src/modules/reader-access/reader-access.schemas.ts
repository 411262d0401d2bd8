import { Type } from '@sinclair/typebox';

const DATE_IN =
  "Date the access expires, 'Y-m-d\\TH:i:sP' (e.g. 2026-12-31T23:59:59+00:00; +0000 and Z accepted), in the future. Absent or null: never expires";

export const ReaderAccessSchema = Type.Object(
  {
    email: Type.String({ description: 'Reader e-mail address, in lower case' }),
    expiresAt: Type.Union([Type.String(), Type.Null()], {
      description: 'Date the access expires; null if it never expires',
    }),
    created: Type.String({ description: 'Date of access creation, e.g. 2026-11-21T10:15:00+0000' }),
    revoked: Type.Union([Type.String(), Type.Null()], {
      description: 'Date of revocation; null if not revoked',
    }),
  },
  { title: 'ReaderAccess' },
);

export const ReaderAccessGrantBody = Type.Object(
  {
    email: Type.String({ minLength: 1, maxLength: 254, description: 'Reader e-mail address' }),
    expiresAt: Type.Optional(
      Type.Union([Type.String({ maxLength: 64 }), Type.Null()], { description: DATE_IN }),
    ),
  },
  { title: 'ReaderAccessGrant' },
);

export const ReaderAccessRevokeBody = Type.Object(
  { email: Type.String({ minLength: 1, maxLength: 254, description: 'Reader e-mail address' }) },
  { title: 'ReaderAccessRevoke' },
);
