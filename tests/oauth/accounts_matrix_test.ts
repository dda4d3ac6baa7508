/**
 * The scope matrix over every authenticated route of accounts and
 * relationships: a missing or revoked token gets 401, a token lacking the
 * scope 403, an app token on a user route 422, a wider scope passes, and the
 * login states get their 403s.
 */
import { startInstance, test } from "../harness.ts";
import { assertScopeMatrix, scopeFixtures, type ScopeRow } from "./scope_matrix.ts";
import { createUser } from "./helpers.ts";

const user = (method: string, path: string, ...scopes: string[]): ScopeRow => ({
  method,
  path,
  kind: "user",
  scopes,
});

test("scope matrix: own account, relationships, follow requests, blocks, mutes, domain blocks", async (t) => {
  const instance = await startInstance();
  try {
    const target = (await createUser(instance, "matrix_target")).accountId;
    const a = `/api/v1/accounts/${target}`;
    const follows = ["write:follows", "follow"];
    const blocks = ["write:blocks", "follow"];
    const mutes = ["write:mutes", "follow"];
    const rows: ScopeRow[] = [
      { method: "POST", path: "/api/v1/accounts", kind: "app", scopes: ["write:accounts"] },
      user("GET", "/api/v1/accounts/verify_credentials", "read:accounts", "profile"),
      user("PATCH", "/api/v1/accounts/update_credentials", "write:accounts"),
      user("DELETE", "/api/v1/profile/avatar", "write:accounts"),
      user("DELETE", "/api/v1/profile/header", "write:accounts"),
      user("GET", "/api/v1/preferences", "read:accounts"),
      user("GET", `/api/v1/accounts/relationships?id[]=${target}`, "read:follows", "follow"),
      user("POST", `${a}/follow`, ...follows),
      user("POST", `${a}/unfollow`, ...follows),
      user("POST", `${a}/remove_from_followers`, ...follows),
      user("POST", `${a}/block`, ...blocks),
      user("POST", `${a}/unblock`, ...blocks),
      user("POST", `${a}/mute`, ...mutes),
      user("POST", `${a}/unmute`, ...mutes),
      user("POST", `${a}/endorse`, "write:accounts"),
      user("POST", `${a}/unendorse`, "write:accounts"),
      user("POST", `${a}/pin`, "write:accounts"),
      user("POST", `${a}/unpin`, "write:accounts"),
      user("POST", `${a}/note`, "write:accounts"),
      user("GET", "/api/v1/follow_requests", "read:follows", "follow"),
      user("POST", `/api/v1/follow_requests/${target}/authorize`, ...follows),
      user("POST", `/api/v1/follow_requests/${target}/reject`, ...follows),
      user("GET", "/api/v1/blocks", "read:blocks", "follow"),
      user("GET", "/api/v1/mutes", "read:mutes", "follow"),
      user("GET", "/api/v1/endorsements", "read:accounts"),
      user("GET", "/api/v1/domain_blocks", "read:blocks", "follow"),
      user("POST", "/api/v1/domain_blocks", ...blocks),
      user("DELETE", "/api/v1/domain_blocks", ...blocks),
    ];
    const send = (path: string, init: RequestInit) => instance.request(path, init);
    await assertScopeMatrix(t, send, await scopeFixtures(instance), rows);
  } finally {
    await instance.close({ destroy: true });
  }
});
