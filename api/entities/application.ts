/**
 * Application and CredentialApplication (Mastodon 4.5). `vapid_key`, though
 * deprecated since 4.3, is still sent (apps written before 4.3 subscribe to
 * Web Push with it): the server's key from actors/push/vapid.ts.
 */
import type { ApplicationRow } from "../../actors/oauth/oauth.ts";

/** An application as shown to any holder of one of its tokens. */
export interface Application {
  id: string;
  name: string;
  website: string | null;
  scopes: string[];
  /** Deprecated: every redirect URI, joined by a newline. */
  redirect_uri: string;
  redirect_uris: string[];
  /** Deprecated: the server's VAPID public key (also in the instance's configuration). */
  vapid_key: string;
}

/** An application as its registrant sees it once, with its credentials. */
export interface CredentialApplication extends Application {
  client_id: string;
  client_secret: string;
  /** 0: secrets do not expire. */
  client_secret_expires_at: number;
}

/** Serializes an application row. */
export function applicationEntity(row: ApplicationRow, vapidKey: string): Application {
  return {
    id: row.id,
    name: row.name,
    website: row.website ?? null,
    scopes: row.scopes,
    redirect_uri: row.redirectUris.join("\n"),
    redirect_uris: row.redirectUris,
    vapid_key: vapidKey,
  };
}

/** Serializes a freshly registered application with its one-time secret. */
export function credentialApplicationEntity(
  row: ApplicationRow,
  clientSecret: string,
  vapidKey: string,
): CredentialApplication {
  return {
    ...applicationEntity(row, vapidKey),
    client_id: row.clientId,
    client_secret: clientSecret,
    client_secret_expires_at: 0,
  };
}
