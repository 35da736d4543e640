/** Where next-auth's endpoints live: /api/auth/* belongs to the REST API (register, login). */
export const SESSION_BASE_PATH = "/api/session";
