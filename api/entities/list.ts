/** The List entity: `{id, title, replies_policy, exclusive}`. */
import type { lists } from "../../db/schema/mod.ts";

export interface ListJson {
  id: string;
  title: string;
  replies_policy: string;
  exclusive: boolean;
}

/** Serializes a list row. */
export function listEntity(row: typeof lists.$inferSelect): ListJson {
  return {
    id: row.id,
    title: row.title,
    replies_policy: row.repliesPolicy,
    exclusive: row.exclusive,
  };
}
