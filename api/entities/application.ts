/**
 * Application and CredentialApplication (Mastodon 4.5). `vapid_key` is left
 * out: it is deprecated since 4.3 and Web Push is not implemented yet, so
 * there is no server key to give.
 */
import type { ApplicationRow } from "../../actors/oauth.ts";

/** An application as shown to any holder of one of its tokens. */
export interface Application {
  id: string;
  name: string;
  website: string | null;
  scopes: string[];
  /** Deprecated: every redirect URI, joined by a newline. */
  redirect_uri: string;
  redirect_uris: string[];
}

/** An application as its registrant sees it once, with its credentials. */
export interface CredentialApplication extends Application {
  client_id: string;
  client_secret: string;
  /** 0: secrets do not expire. */
  client_secret_expires_at: number;
}

/** Serializes an application row. */
export function applicationEntity(row: ApplicationRow): Application {
  return {
    id: row.id,
    name: row.name,
    website: row.website ?? null,
    scopes: row.scopes,
    redirect_uri: row.redirectUris.join("\n"),
    redirect_uris: row.redirectUris,
  };
}

/** Serializes a freshly registered application with its one-time secret. */
export function credentialApplicationEntity(
  row: ApplicationRow,
  clientSecret: string,
): CredentialApplication {
  return {
    ...applicationEntity(row),
    client_id: row.clientId,
    client_secret: clientSecret,
    client_secret_expires_at: 0,
  };
}
