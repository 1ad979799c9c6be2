export * from './drafts.service';
