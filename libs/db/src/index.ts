export { PrismaService, type DatabaseOptions } from './prisma.service';
export { Prisma } from './generated/prisma/client';
export type { PrismaClient } from './generated/prisma/client';
export { startEmbeddedPostgres, freePort, type EmbeddedPostgresHandle, type EmbeddedPostgresOptions } from './embedded-postgres';
export { migrate, readMigrations, checksumOf, migrationStatus, MigrationError, type MigrateResult, type MigrationFile, type MigrationStatus, type Queryable } from './migrations/migration-runner';
export { projectRoot, migrationsDir } from './project-root';
