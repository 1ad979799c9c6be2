export * from './remedy';
export * from './figures';
export * from './incident-text';
export * from './template.types';
export * from './template.builder';
export * from './parameter.filler';
export { TEMPLATES, findTemplate } from './templates';
export * from './suggest';
export * from './document.checks';
