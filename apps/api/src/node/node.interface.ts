import { Field, ID, InterfaceType, type FieldMiddleware } from '@nestjs/graphql';
import { toGlobalId, type NodeType } from './global-id';

/** Where `node`/`nodes` note the concrete type of what they fetched, for `resolveType`. */
export const NODE_TYPE = Symbol('nodeType');

export type TaggedNode = Record<string, unknown> & { [NODE_TYPE]: NodeType };

/** The record's own id (uuid, or the audit trail's sequence number) as a global id of the type asked. */
const globalId: FieldMiddleware = async ({ info }, next) => {
  const local: unknown = await next();
  return toGlobalId(info!.parentType.name as NodeType, String(local));
};

/**
 * Every object type with an id extends this class: it inherits the `id` field (and its
 * encoding) and implements the interface.
 */
@InterfaceType('Node', {
  description: 'An object with a global id: `node(id:)` fetches it again. Ids are opaque strings, the same for the same object, unique across types.',
  resolveType: (value: TaggedNode) => value[NODE_TYPE],
})
export abstract class Node {
  @Field(() => ID, { description: 'Global id (opaque); `node(id:)` fetches the object again.', middleware: [globalId] })
  id!: string;
}
