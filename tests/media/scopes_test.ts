/** Scope matrix rows for the media routes: user token + write:media on all of them. */
import { startInstance, test } from "../harness.ts";
import { assertScopeMatrix, scopeFixtures } from "../oauth/scope_matrix.ts";

test("media routes need a user token with write:media", async (t) => {
  const instance = await startInstance({ worker: false });
  try {
    const fixtures = await scopeFixtures(instance);
    const scopes = ["write:media"];
    await assertScopeMatrix(t, (path, init) => instance.request(path, init), fixtures, [
      { method: "POST", path: "/api/v2/media", kind: "user", scopes },
      { method: "POST", path: "/api/v1/media", kind: "user", scopes },
      { method: "GET", path: "/api/v1/media/1", kind: "user", scopes },
      { method: "PUT", path: "/api/v1/media/1", kind: "user", scopes },
      { method: "DELETE", path: "/api/v1/media/1", kind: "user", scopes },
    ]);
  } finally {
    await instance.close({ destroy: true });
  }
});
