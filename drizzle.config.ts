// drizzle-kit reads this to generate SQL migrations from db/schema/mod.ts.
import { defineConfig } from "drizzle-kit";
export default defineConfig({
  dialect: "postgresql",
  schema: "./db/schema/mod.ts",
  out: "./db/migrations",
});
