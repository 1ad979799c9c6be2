export * from './remote-issues';
export * from './retry-budget';
export * from './tracker-sync-options';
export * from './tracker-sync.service';
