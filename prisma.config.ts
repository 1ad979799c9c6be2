import { defineConfig } from 'prisma/config';

// The client never reads this file; it is for the Prisma CLI (generate, and migrate where its
// engine can be downloaded). The app migrates with its own runner (libs/db/src/migrations).
export default defineConfig({
  schema: 'prisma/schema.prisma',
  migrations: { path: 'prisma/migrations' },
  datasource: { url: process.env.DATABASE_URL ?? 'postgresql://localhost:5432/hindsight' },
});
