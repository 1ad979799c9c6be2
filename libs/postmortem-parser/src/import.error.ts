/** Why a document was refused outright (as opposed to imported with warnings). */
export const IMPORT_ERROR_CODES = ['EMPTY_DOCUMENT', 'BINARY_DATA', 'TOO_LARGE', 'NO_STRUCTURE', 'INVALID_OPTIONS'] as const;
export type ImportErrorCode = (typeof IMPORT_ERROR_CODES)[number];

/**
 * The importer's one error type. Callers map `code` to their own transport (GraphQL
 * `BAD_USER_INPUT`, a CLI exit code) without parsing the message.
 */
export class ImportError extends Error {
  constructor(
    readonly code: ImportErrorCode,
    message: string,
    readonly details: Record<string, unknown> = {},
  ) {
    super(message);
    this.name = 'ImportError';
  }
}
