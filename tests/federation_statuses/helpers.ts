/** Still imported by tests/emoji until it moves to tests/fixtures (federation.ts, api.ts). */
export { callJson, postStatus as post } from "../fixtures/api.ts";
export {
  arrived,
  closeAll,
  followRemote as follow,
  startPair,
  storedStatus,
} from "../fixtures/federation.ts";
export { createUser } from "../fixtures/users.ts";
export { eventually } from "../fixtures/wait.ts";
