export * from './model-executor';
export * from './model-runs.types';
export * from './model-runs.service';
export * from './seed-models';
export * from './model-loaders';
export * from './model-run-queue';
export * from './model-scenario-link';
export * from './runner-executor';
