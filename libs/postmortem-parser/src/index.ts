export { parsePostmortem } from './postmortem.parser';
export { ImportError, IMPORT_ERROR_CODES, type ImportErrorCode } from './import.error';
export {
  DOCUMENT_FORMATS,
  SECTION_KINDS,
  IMPORT_WARNING_CODES,
  type DocumentFormat,
  type SectionKind,
  type TrackerBases,
  type ParsePostmortemOptions,
  type RecognisedSection,
  type ImportWarning,
  type ImportWarningCode,
  type SourceLine,
  type SuggestedPattern,
  type ImportDecision,
  type ImportReport,
  type PostmortemVerdict,
  type ImportResult,
} from './importer.types';
export { DEFAULT_MAX_BYTES } from './input.normalizer';
export { detectFormat } from './format.detector';
export { classifyHeading } from './section.classifier';
export { extractReferences } from './reference.extractor';
export { formatImportReport } from './import-report.formatter';
export { importCli, type ImportCliIo } from './import.cli';
