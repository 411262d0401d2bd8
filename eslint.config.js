import js from '@eslint/js';
import tseslint from 'typescript-eslint';

const CROSS_MODULE_REPOSITORY = {
  group: [
    '../*/*.repository',
    '../*/*.repository.ts',
    '**/modules/*/*.repository',
    '**/modules/*/*.repository.ts',
  ],
  message: "A module never uses another module's repository: call that module's service.",
};
const ROUTES_TO_DB = {
  group: ['**/db/*', '**/db/**'],
  message: 'Routes never touch the database: call a service.',
};
const INTO_MODULES = {
  group: ['**/modules/*', '**/modules/**'],
  message: 'content/, db/ and http/ sit below the modules and never import them.',
};

export default tseslint.config(
  { ignores: ['node_modules', 'data', 'coverage', 'dist'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: {
        projectService: true,
        tsconfigRootDir: import.meta.dirname,
      },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      // Fastify plugins and hooks are async by contract, with or without an await inside.
      '@typescript-eslint/require-await': 'off',
      '@typescript-eslint/switch-exhaustiveness-check': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  // The layering, as lint errors (docs/decisions/0007-seams.md).
  {
    files: ['src/modules/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: [CROSS_MODULE_REPOSITORY] }] },
  },
  {
    files: ['src/modules/**/*.routes.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: [CROSS_MODULE_REPOSITORY, ROUTES_TO_DB] }] },
  },
  {
    files: ['src/content/**/*.ts', 'src/db/**/*.ts', 'src/http/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: [INTO_MODULES] }] },
  },
  {
    files: ['src/**/*.ts'],
    ignores: ['src/config.ts', 'src/main.ts', 'src/cli/main.ts'],
    rules: {
      'no-restricted-properties': [
        'error',
        {
          object: 'process',
          property: 'env',
          message: 'Read the environment in src/config.ts (loadConfig) and pass the config in.',
        },
      ],
    },
  },
  {
    // res.json() is `any` by design of the inject API; tests assert on its shape instead.
    files: ['test/**/*.ts', 'bench/**/*.ts'],
    rules: {
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
    },
  },
  {
    files: ['**/*.js'],
    ...tseslint.configs.disableTypeChecked,
  },
);
