/**
 * The ceiling server of `deno task bench`: a Deno + Hono hello-world, run as
 * its own process with the same V8 flags as Rookery, so the cheapest API
 * call can be put against what this machine, Deno and Hono allow at most
 * (the load generator included), measured in the same run.
 *
 * Usage: deno run --allow-net bench/hello.ts PORT
 */
import { Hono } from "hono";

const app = new Hono();
app.get("/", (c) => c.text("Hello, world!"));
Deno.serve({ hostname: "127.0.0.1", port: Number(Deno.args[0]), onListen() {} }, app.fetch);
