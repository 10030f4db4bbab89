/**
 * The physical layout of the single table: attribute names and global secondary indexes.
 * The storage stack, the local table bootstrap and every repository read this one file,
 * so the deployed indexes cannot drift from the code that queries them.
 */
export const Table = {
  partitionKey: "pk",
  sortKey: "sk",
  ttlAttribute: "ttl",
  indexes: {
    /** Secondary listings: users by creation, a user's brokers, tasks by symbol... */
    gsi1: { name: "gsi1", partitionKey: "gsi1pk", sortKey: "gsi1sk" },
    /** A second, independent listing for entities that need two (e.g. by owner and by status). */
    gsi2: { name: "gsi2", partitionKey: "gsi2pk", sortKey: "gsi2sk" },
  },
} as const;

export type IndexName = keyof typeof Table.indexes;

/** Attribute definitions and key schema in the shape both CloudFormation and CreateTable accept. */
export function tableSchema() {
  const attributes: string[] = [Table.partitionKey, Table.sortKey];
  for (const index of Object.values(Table.indexes)) attributes.push(index.partitionKey, index.sortKey);
  return {
    attributeDefinitions: attributes.map((name) => ({ AttributeName: name, AttributeType: "S" as const })),
    keySchema: [
      { AttributeName: Table.partitionKey, KeyType: "HASH" as const },
      { AttributeName: Table.sortKey, KeyType: "RANGE" as const },
    ],
    globalSecondaryIndexes: Object.values(Table.indexes).map((index) => ({
      IndexName: index.name,
      KeySchema: [
        { AttributeName: index.partitionKey, KeyType: "HASH" as const },
        { AttributeName: index.sortKey, KeyType: "RANGE" as const },
      ],
      Projection: { ProjectionType: "ALL" as const },
    })),
  };
}
