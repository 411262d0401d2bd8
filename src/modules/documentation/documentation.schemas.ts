import { Type } from '@sinclair/typebox';

export const DocumentationSchema = Type.Object(
  {
    id: Type.Integer(),
    title: Type.String(),
    published: Type.Boolean({ description: 'True if readers can view it' }),
    created: Type.String(),
    updated: Type.String(),
    slug: Type.String(),
    ordr: Type.Integer({ description: 'Numerical order in the version' }),
  },
  { title: 'Documentation' },
);
