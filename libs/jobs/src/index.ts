export * from './polled-queue';
