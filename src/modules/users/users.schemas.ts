import { Type } from '@sinclair/typebox';

export const UserSchema = Type.Object(
  {
    id: Type.Integer(),
    name: Type.String(),
    email: Type.String(),
    role: Type.Union([
      Type.Literal('ADMIN'),
      Type.Literal('PUBLISHER'),
      Type.Literal('WRITER'),
      Type.Literal('REVIEWER'),
    ]),
    lastActiveAt: Type.Union([Type.String(), Type.Null()], {
      description: 'Date the user last acted; null if never',
    }),
  },
  { title: 'User' },
);
