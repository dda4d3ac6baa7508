// drizzle-kit reads this to generate SQL migrations from db/schema.ts.
import { defineConfig } from "drizzle-kit";
export default defineConfig({
  dialect: "postgresql",
  schema: "./db/schema.ts",
  out: "./db/migrations",
});
