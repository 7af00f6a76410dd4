import { assertWebBuilt, signedInBrowser, type PHONE, type TestBrowser } from './browser.js';
import { signedInPanel, type Session } from './fixtures.js';
import { OWNER } from './test-panel.js';

export interface WebPanel {
  /** The panel and the owner's token (read inside tests). */
  session: () => Session;
  /** An address of the panel under its base path. */
  url: (path: string) => string;
  /** A fresh browser signed in as `user` (the owner unless given), the clipboard allowed; closed after the file. */
  browserAt(
    options?: { viewport?: typeof PHONE; language?: 'fa' },
    user?: { username: string; password: string },
  ): Promise<TestBrowser>;
}

/**
 * A panel serving the built web app for a whole spec file (started in beforeAll, stopped in
 * afterAll), and browsers signed in to it, each closed after the file.
 */
export function webPanel(): WebPanel {
  beforeAll(() => assertWebBuilt());
  const session = signedInPanel();
  const opened: TestBrowser[] = [];
  afterAll(async () => {
    for (const browser of opened) await browser.close();
  });
  const url = (path: string) => `${session().t.panel.origin}${session().t.config.basePath}${path}`;
  return {
    session,
    url,
    async browserAt(options = {}, user = OWNER) {
      const browser = await signedInBrowser(url, user, options);
      opened.push(browser);
      await browser.context.grantPermissions(['clipboard-read', 'clipboard-write'], {
        origin: session().t.panel.origin,
      });
      return browser;
    },
  };
}
