/**
 * The scope matrix rows of the status routes that need a token: posting,
 * editing and deleting (user + write:statuses) and the source (any token
 * with read:statuses). The public reads are covered in read_test.ts.
 */
import { startInstance, test } from "../harness.ts";
import { assertScopeMatrix, scopeFixtures, type ScopeRow } from "../oauth/scope_matrix.ts";
import { postStatus } from "../fixtures/api.ts";
import { createUser } from "../fixtures/users.ts";

test("scope matrix: statuses", async (t) => {
  const instance = await startInstance();
  try {
    const author = await createUser(instance, "matrix_author");
    const status = await postStatus(instance, author, { status: "matrix" });
    const json = { headers: { "Content-Type": "application/json" } };
    const rows: ScopeRow[] = [
      {
        method: "POST",
        path: "/api/v1/statuses",
        kind: "user",
        scopes: ["write:statuses"],
        init: { ...json, body: JSON.stringify({ status: "" }) },
      },
      {
        method: "PUT",
        path: `/api/v1/statuses/${status.id}`,
        kind: "user",
        scopes: ["write:statuses"],
        init: { ...json, body: JSON.stringify({ status: "edited" }) },
      },
      { method: "DELETE", path: "/api/v1/statuses/1", kind: "user", scopes: ["write:statuses"] },
      {
        method: "GET",
        path: `/api/v1/statuses/${status.id}/source`,
        kind: "token",
        scopes: ["read:statuses"],
      },
    ];
    const fixtures = await scopeFixtures(instance);
    await assertScopeMatrix(t, (path, init) => instance.request(path, init), fixtures, rows);
  } finally {
    await instance.close({ destroy: true });
  }
});
