/** The first API key on its way from /signup/submit to the one page that shows it (no JavaScript). */
export const NEW_KEY_COOKIE = "routekit-new-api-key";
export const NEW_KEY_PATH = "/signup/welcome";
