/**
 * The shared set-up of the access block tests: one instance behind a trusted
 * proxy (client addresses come from X-Forwarded-For), staff of every role
 * with admin scopes, an app token for sign-ups, and small helpers.
 */
import { eq } from "drizzle-orm";
import { users } from "../../db/schema/mod.ts";
import { call } from "../fixtures/api.ts";
import { createUser, type TestUser } from "../fixtures/users.ts";
import { appToken, signUp, signUpForm } from "../accounts/helpers.ts";
import { startInstance, type TestInstance } from "../harness.ts";

export const ADMIN_SCOPES = ["read", "admin:read", "admin:write"];
export async function setRole(instance: TestInstance, user: TestUser, role: string): Promise<void> {
  await instance.rookery.ctx.database.db.update(users).set({ role })
    .where(eq(users.id, user.userId));
}

export async function sha256Hex(text: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/** The stored user of an address, or undefined. */
export async function userByEmail(instance: TestInstance, email: string) {
  const [row] = await instance.rookery.ctx.database.db.select().from(users)
    .where(eq(users.email, email));
  return row;
}

/** The status of an anonymous GET /api/v1/instance from `ip`. */
export async function instanceStatus(instance: TestInstance, ip: string): Promise<number> {
  const res = await call(instance, null, "GET", "/api/v1/instance", undefined, {
    "x-forwarded-for": ip,
  });
  await res.body?.cancel();
  return res.status;
}

/** Asks until the answer is `expected` (for up to 5 s); returns the last status. */
export async function statusSoon(ask: () => Promise<number>, expected: number): Promise<number> {
  const deadline = Date.now() + 5_000;
  let status = await ask();
  while (status !== expected && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    status = await ask();
  }
  return status;
}

/** Starts the instance and its users; close `instance` (and `extra`) at the end. */
export async function startAccessBlocks() {
  const instance = await startInstance({ env: { TRUST_PROXY: "true" } });
  const db = instance.rookery.ctx.database.db;
  const extra: TestInstance[] = [];
  const admin = await createUser(instance, "boss", { scopes: ADMIN_SCOPES });
  const owner = await createUser(instance, "chief", { scopes: ADMIN_SCOPES });
  const mod = await createUser(instance, "moddy", { scopes: ADMIN_SCOPES });
  const plain = await createUser(instance, "plain", { scopes: ADMIN_SCOPES });
  const readOnlyAdmin = await createUser(instance, "readonly", { scopes: ["admin:read"] });
  await setRole(instance, admin, "admin");
  await setRole(instance, owner, "owner");
  await setRole(instance, mod, "moderator");
  await setRole(instance, readOnlyAdmin, "admin");
  const app = await appToken(instance);
  const counter = { serial: 0 };
  return {
    instance,
    db,
    extra,
    admin,
    owner,
    mod,
    plain,
    readOnlyAdmin,
    app,
    counter,
    /** Signs up a fresh username with `email` from `ip`. */
    signUpFrom: (ip: string, email: string) =>
      signUp(instance, app.token, signUpForm(`user${++counter.serial}`, { email }), {
        "x-forwarded-for": ip,
      }),
    from: (ip: string) => ({ "x-forwarded-for": ip }),
  };
}
