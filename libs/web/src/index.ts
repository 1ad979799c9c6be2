export * from './html';
export * from './markdown';
export * from './time-format';
export * from './anchors';
export * from './feedback-loops';
export * from './causal-graph-layout';
export * from './causal-graph-svg';
