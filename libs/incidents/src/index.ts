export * from './incident.types';
export * from './incidents.service';
export * from './incident-loaders';
export * from './incident-writer';
export * from './keyset';
export * from './seed/seed-files';
export * from './seed/seeder';
