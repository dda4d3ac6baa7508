/** Column helpers shared by the schema files. */
import { customType, timestamp } from "drizzle-orm/pg-core";

/** 64-bit ids travel as strings end to end (both drivers return int8 as text). */
export const id = customType<{ data: string; driverData: string }>({
  dataType: () => "bigint",
  fromDriver: (value) => String(value),
});
export const ts = (name: string) => timestamp(name, { withTimezone: true, mode: "date" });

/** A text-search vector, written only by the database (see statusSearch). */
export const tsvector = customType<{ data: string; driverData: string }>({
  dataType: () => "tsvector",
});
