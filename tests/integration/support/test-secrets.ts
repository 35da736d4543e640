/** The servers under test and in-process tests share it, so both can read what the other encrypted. */
export const TEST_AUTH_SECRET = "integration-tests-only-secret-0123456789abcdef";
