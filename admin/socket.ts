/**
 * The admin socket: a Unix socket under the data directory through which the
 * admin command line reaches a running server (PGlite has a single owner).
 */
import type { AppContext } from "../context.ts";

export interface AdminSocket {
  close(): Promise<void>;
}

export function startAdminSocket(_ctx: AppContext): Promise<AdminSocket | null> {
  return Promise.resolve(null);
}
