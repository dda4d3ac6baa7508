/**
 * Structured logging through LogTape. Fedify logs through the same sinks,
 * under the "fedify" category; ours are under "rookery".
 */
import { configure, getConsoleSink, getJsonLinesFormatter, reset } from "@logtape/logtape";
import { AsyncLocalStorage } from "node:async_hooks";
import type { LogLevel } from "./config.ts";

export interface LoggingOptions {
  level: LogLevel;
  /** One JSON object per line instead of human-readable text. */
  json?: boolean;
}

export async function setupLogging(options: LoggingOptions): Promise<void> {
  await reset();
  await configure({
    reset: true,
    // Fedify wraps every request and queued message in withContext(); without
    // a store LogTape warned, once per call (four lines per inbox delivery),
    // and the records lacked the request and message ids.
    contextLocalStorage: new AsyncLocalStorage(),
    sinks: {
      console: options.json
        ? getConsoleSink({ formatter: getJsonLinesFormatter() })
        : getConsoleSink(),
    },
    loggers: [
      { category: ["logtape", "meta"], lowestLevel: "warning", sinks: ["console"] },
      { category: ["rookery"], lowestLevel: options.level, sinks: ["console"] },
      {
        category: ["fedify"],
        // Fedify is chatty at info; its warnings and errors are what an operator needs.
        lowestLevel: options.level === "debug" || options.level === "trace"
          ? options.level
          : "warning",
        sinks: ["console"],
      },
    ],
  });
}
