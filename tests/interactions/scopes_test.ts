/** The scope rows of the interaction routes (tests/oauth/scope_matrix.ts). */
import { startInstance, test } from "../harness.ts";
import { assertScopeMatrix, scopeFixtures, type ScopeRow } from "../oauth/scope_matrix.ts";
import { createUser } from "../fixtures/users.ts";
import { post } from "./helpers.ts";

test("Scopes: interaction routes", async (t) => {
  const a = await startInstance({ worker: false });
  try {
    const author = await createUser(a, "author");
    const s = await post(a, author, "Scoped");
    const q = await post(a, author, "Quoting", { quotedStatusId: s });
    const user = (method: string, path: string, scopes: string[]): ScopeRow => ({
      method,
      path,
      kind: "user",
      scopes,
    });
    const fixtures = await scopeFixtures(a);
    await assertScopeMatrix(t, (path, init) => a.request(path, init), fixtures, [
      user("POST", `/api/v1/statuses/${s}/reblog`, ["write:statuses"]),
      user("POST", `/api/v1/statuses/${s}/unreblog`, ["write:statuses"]),
      user("POST", `/api/v1/statuses/${s}/favourite`, ["write:favourites"]),
      user("POST", `/api/v1/statuses/${s}/unfavourite`, ["write:favourites"]),
      user("POST", `/api/v1/statuses/${s}/bookmark`, ["write:bookmarks"]),
      user("POST", `/api/v1/statuses/${s}/unbookmark`, ["write:bookmarks"]),
      user("POST", `/api/v1/statuses/${s}/mute`, ["write:mutes"]),
      user("POST", `/api/v1/statuses/${s}/unmute`, ["write:mutes"]),
      user("POST", `/api/v1/statuses/${s}/pin`, ["write:accounts"]),
      user("POST", `/api/v1/statuses/${s}/unpin`, ["write:accounts"]),
      user("GET", `/api/v1/statuses/${s}/quotes`, ["read:statuses"]),
      user("POST", `/api/v1/statuses/${s}/quotes/${q}/revoke`, ["write:statuses"]),
      user("GET", "/api/v1/favourites", ["read:favourites"]),
      user("GET", "/api/v1/bookmarks", ["read:bookmarks"]),
    ]);
  } finally {
    await a.close({ destroy: true });
  }
});
