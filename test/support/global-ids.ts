import { fromGlobalId, toGlobalId, type NodeType } from '../../apps/api/src/node/global-id';

/** The API's id of a row a suite read from the database. */
export const gid = (type: NodeType, rowId: string | bigint): string => toGlobalId(type, String(rowId));

/** The database id behind an id the API returned. */
export const rid = (globalId: string): string => fromGlobalId(globalId, 'id').localId;
