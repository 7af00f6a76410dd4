/**
 * The route config flag marking the web app's own routes (its pages and built assets). Here, in
 * http, so the request layer can tell them apart (they set their own caching) without importing
 * the web module, which depends on http.
 */
export const WEB_APP_ROUTE = 'warrenWebApp';
