/**
 * Where the panel lives, read from the `<base href>` the controller writes into index.html for
 * its WARREN_BASE_PATH: "" or "/x7k2". The same build works under any base path.
 */
export const basePath = new URL(document.baseURI).pathname.replace(/\/+$/, '');

/** The panel's address as the browser reached it, with the base path: what the API client and curl commands use. */
export const panelUrl = `${window.location.origin}${basePath}`;
