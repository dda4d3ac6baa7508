/** AsyncRefresh (Mastodon 4.4, experimental): `{"async_refresh": {id, status, result_count}}`. */
import type { AsyncRefresh } from "../../actors/statuses/reply_crawls.ts";

export function serializeAsyncRefresh(refresh: AsyncRefresh) {
  return {
    async_refresh: {
      id: refresh.id,
      status: refresh.status,
      result_count: refresh.resultCount,
    },
  };
}
