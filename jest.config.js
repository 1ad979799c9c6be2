/** @type {import('jest').Config} */
const swc = ['@swc/jest', require('./scripts/swc-options')];

const common = {
  rootDir: __dirname,
  testEnvironment: 'node',
  transform: { '^.+\\.(t|j|mj)s$': swc },
  // Nest 12, marked, sanitize-html's parser (htmlparser2 and its dom* helpers) and Octokit (with
  // its helpers) ship ESM only; jest must transform them like our own code.
  transformIgnorePatterns: [
    '/node_modules/(?!(@nestjs|@apollo|@as-integrations|marked|htmlparser2|domhandler|domutils|domelementtype|dom-serializer|entities|@octokit|universal-user-agent|before-after-hook|json-with-bigint|jira\\.js/node_modules/mime|mime)/)',
  ],
  moduleNameMapper: { '^@hindsight/([a-z-]+)$': '<rootDir>/libs/$1/src/index.ts' },
};

module.exports = {
  testTimeout: 60000,
  projects: [
    {
      // Pure code: no database, no network.
      ...common,
      displayName: 'unit',
      testMatch: ['<rootDir>/libs/**/*.spec.ts', '<rootDir>/apps/**/*.spec.ts'],
    },
    {
      // Boots the real app against a real Postgres (DATABASE_URL, or a throwaway embedded server).
      ...common,
      displayName: 'db',
      testMatch: ['<rootDir>/test/**/*.spec.ts'],
    },
  ],
};
