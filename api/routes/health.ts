/**
 * GET /health: 200 `OK` (text/plain, as Mastodon answers) when the database
 * answers a trivial query, 503 otherwise, so a load balancer takes a process
 * that lost its database out of rotation.
 */
import { Hono } from "hono";
import { sql } from "drizzle-orm";
import { getLogger } from "@logtape/logtape";
import type { ApiEnv } from "../env.ts";

const logger = getLogger(["rookery", "http", "health"]);

/** The health check route. */
export function healthRoutes(): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();
  app.get("/health", async (c) => {
    c.header("Cache-Control", "no-store");
    try {
      await c.get("ctx").database.rows(sql`SELECT 1`);
      return c.text("OK");
    } catch (error) {
      logger.warn("Health check failed: {error}", { error });
      return c.text("Service Unavailable", 503);
    }
  });
  return app;
}
