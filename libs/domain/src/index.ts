export * from './incident-document';
export * from './app-error';
export * from './text-fold';
export * from './validate-incident-document';
export * from './iso-instant';
export * from './incident-metadata';
