export { PrismaService, type DatabaseOptions } from './prisma.service';
export { Prisma } from './generated/prisma/client';
export type { PrismaClient } from './generated/prisma/client';
export { startEmbeddedPostgres, freePort, type EmbeddedPostgresHandle, type EmbeddedPostgresOptions } from './embedded-postgres';
export { migrate, readMigrations, checksumOf, MigrationError, type MigrateResult, type MigrationFile } from './migrations/migration-runner';
export { projectRoot, migrationsDir } from './project-root';
