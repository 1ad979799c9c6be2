export * from './imports.service';
