/** docs/decisions.md §7: every engine URL is `{PUBLIC_BASE_URL}` + this + the account's routing token. */
export const ENGINE_PATH_PREFIX = "/api/engine/voice/";
