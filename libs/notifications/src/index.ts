export * from './notice';
export * from './notification-options';
export * from './notifications.service';
export * from './webhook-signature';
