import { Inject, Injectable } from '@nestjs/common';
import { ProfilesService, type ClientConfigs, type Profile } from '../clients/profiles.service.js';
import { LoginThrottleRepository, type LockoutPolicy, type ThrottleKey } from '../auth/login-throttle.repository.js';
import { throttleAddress } from '../auth/throttle-address.js';
import { ALL_CLIENTS, type OwnerFilter } from '../auth/operator-scope.js';
import { ApiError, notFound, tooManyRequests } from '../http/api-error.js';
import { toErrorResponse } from '../http/error-response.js';
import type { WarrenConfig } from '../config/config.js';
import { WARREN_CONFIG } from '../runtime.js';
import { renderDownloadPage, renderSubscriptionPage, type PageView } from './subscription-page.js';
import type { PageLocale } from './page-text.js';
import {
  DEFAULT_SUBSCRIPTION_SETTINGS,
  isSubscriptionKey,
  storedSubscriptionSettings,
  SUBSCRIPTION_KEY_SETTING,
  SUBSCRIPTION_SETTINGS_KEY,
  type SubscriptionFormat,
  type SubscriptionSettings,
} from './subscription-settings.js';
import { SubscriptionsRepository, type SubscriptionClient } from './subscriptions.repository.js';
import {
  hashToken,
  isTokenShaped,
  newNonce,
  newSubscriptionKey,
  randomToken,
  sameHash,
  subscriptionToken,
} from './subscription-token.js';

/** Where the public answers live below the base path. */
export const SUBSCRIPTION_PATH = 'sub';
export const DOWNLOAD_PATH = 'dl';

/**
 * Guessing links is throttled per address as sign-ins are (auth/login-throttle.*), on its own
 * counter: twenty unknown tokens, then lockouts doubling from 30 s to 15 min. A lockout refuses
 * every link from that address, right ones included, so a guess that lands during it tells nothing.
 */
const LOCKOUT: LockoutPolicy = { firstLockoutMs: 30_000, longestLockoutMs: 15 * 60_000, forgetAfterMs: 15 * 60_000 };
const FREE_MISSES_PER_ADDRESS = 20;

export function linkThrottleKey(ip: string): ThrottleKey {
  return { key: `link:${throttleAddress(ip)}`, freeFailures: FREE_MISSES_PER_ADDRESS };
}

/** A public answer, ready to send: the page, a file, JSON, or a refusal in the API's shape. */
export interface PublicAnswer {
  status: number;
  type: string;
  headers: Record<string, string>;
  body: string | Buffer;
}

export interface PublicRequest {
  token: string;
  ip: string;
  query: Record<string, string | undefined>;
  acceptLanguage: string | undefined;
}

const SAMPLE_PROFILE = `[Interface]
PrivateKey = <sample: the customer's own key>
Address = 10.8.0.2/32
DNS = 1.1.1.1

[Peer]
PublicKey = <sample>
AllowedIPs = 0.0.0.0/0, ::/0
Endpoint = vpn.example.com:51820
PersistentKeepalive = 25
`;

/** Subscription links (issue 23 items 5-7): each client's public page, its settings, one-time links. */
@Injectable()
export class SubscriptionsService {
  /** What "now" is for one-time links; tests move it instead of waiting minutes. */
  now: () => Date = () => new Date();

  constructor(
    private readonly repository: SubscriptionsRepository,
    private readonly profiles: ProfilesService,
    private readonly throttles: LoginThrottleRepository,
    @Inject(WARREN_CONFIG) private readonly config: WarrenConfig,
  ) {}

  // ---- links (operators) ----

  /**
   * The client's link, made the first time it is asked for. A stored hash the panel's key no
   * longer derives (the key row was lost or replaced) would show a link that opens nothing: the
   * client then gets a new link, as a rotation would.
   */
  async link(clientId: string, origin: string, scope: OwnerFilter) {
    const stored = await this.repository.linkOf(clientId, scope);
    if (stored === undefined) throw notFound('client not found', 'id');
    const key = await this.key();
    if (stored.nonce === null) {
      const fresh = newNonce();
      await this.repository.setNonceIfNone(clientId, fresh, hashToken(subscriptionToken(key, clientId, fresh)));
      const made = await this.repository.linkOf(clientId, scope);
      if (!made?.nonce) throw notFound('client not found', 'id');
      return this.linkView(clientId, subscriptionToken(key, clientId, made.nonce), origin);
    }
    const token = subscriptionToken(key, clientId, stored.nonce);
    if (!stored.tokenHash || !sameHash(stored.tokenHash, hashToken(token))) return this.rotate(clientId, origin, scope);
    return this.linkView(clientId, token, origin);
  }

  /** A new link; the old one answers 404 from this moment. */
  async rotate(clientId: string, origin: string, scope: OwnerFilter) {
    // A client outside the scope (or none) changes nothing, not even the panel's key on first use.
    if ((await this.repository.linkOf(clientId, scope)) === undefined) throw notFound('client not found', 'id');
    const key = await this.key();
    const nonce = newNonce();
    const token = subscriptionToken(key, clientId, nonce);
    if (!(await this.repository.replaceNonce(clientId, nonce, hashToken(token), scope))) {
      throw notFound('client not found', 'id');
    }
    return this.linkView(clientId, token, origin);
  }

  private async linkView(clientId: string, token: string, origin: string) {
    const path = `${this.config.basePath}/${SUBSCRIPTION_PATH}/${token}`;
    const { formats } = await this.settings();
    return {
      clientId,
      url: `${origin}${path}`,
      path,
      formats: Object.fromEntries(formats.map((format) => [format, `${origin}${path}?format=${format}`])),
    };
  }

  /** The panel's link key: made once, shared by every replica through the settings table. */
  private async key(): Promise<string> {
    const value = await this.repository.settingOnce(SUBSCRIPTION_KEY_SETTING, newSubscriptionKey());
    if (!isSubscriptionKey(value)) {
      throw new Error('the stored subscription key is not 32 bytes of base64');
    }
    return value;
  }

  // ---- settings ----

  async settings(): Promise<SubscriptionSettings> {
    return readSettings(await this.repository.readSetting(SUBSCRIPTION_SETTINGS_KEY));
  }

  async updateSettings(settings: SubscriptionSettings): Promise<SubscriptionSettings> {
    const value: SubscriptionSettings = {
      title: settings.title,
      supportContact: settings.supportContact,
      formats: [...settings.formats],
      language: settings.language,
    };
    await this.repository.writeSetting(SUBSCRIPTION_SETTINGS_KEY, value);
    return this.settings();
  }

  /** The page as these (unsaved) settings would make it, for a sample customer: no real data. */
  async preview(settings: SubscriptionSettings, language?: PageLocale): Promise<string> {
    const now = this.now();
    const view: PageView = {
      title: settings.title,
      supportContact: settings.supportContact,
      client: {
        name: 'sample-customer',
        status: 'active',
        quotaBytes: 50 * 2 ** 30,
        usedBytes: 12.5 * 2 ** 30,
        upBytes: 2.5 * 2 ** 30,
        downBytes: 10 * 2 ** 30,
        expiresAt: new Date(now.getTime() + 30 * 86_400_000),
      },
      devices: [{ name: 'phone', profiles: [{ label: 'phone · wg0', body: SAMPLE_PROFILE, downloadHref: '#' }] }],
      zipHref: settings.formats.includes('zip') ? '#' : null,
      preview: true,
      now,
    };
    return renderSubscriptionPage(view, language ?? (settings.language === 'fa' ? 'fa' : 'en'));
  }

  // ---- the public page ----

  /**
   * What `/sub/{token}` answers. An address locked out for guessing gets 429 whatever the token;
   * an unknown token counts as a guess and answers 404 exactly as a malformed one does.
   */
  async open(request: PublicRequest): Promise<PublicAnswer> {
    const throttle = linkThrottleKey(request.ip);
    const tokenHash = isTokenShaped(request.token) ? hashToken(request.token) : '';
    // A malformed token is looked up too (as a hash that matches nothing): every miss costs the same.
    const found = await this.repository.lookup(
      tokenHash || hashToken(`malformed:${request.token}`),
      throttle.key,
      SUBSCRIPTION_SETTINGS_KEY,
    );
    if (found.lockedUntil) return refusal(this.lockout(found.lockedUntil));
    const client = found.client;
    if (!client || !tokenHash || !sameHash(client.tokenHash, tokenHash)) return refusal(await this.miss(throttle));
    const settings = readSettings(found.settings);
    const headers = userInfoHeaders(client, settings);
    const format = request.query.format;
    if (format !== undefined) return this.forApps(client, settings, format, request.query.profile, headers);
    const locale = pageLocale(request.query.lang, settings, request.acceptLanguage);
    const configs =
      client.status === 'active' ? await this.profiles.knownClientConfigs(client.id, client.name) : undefined;
    const download = request.query.download;
    if (download !== undefined) {
      if (!configs) return refusal(new ApiError(403, inactiveMessage(client), ''), headers);
      const profile = pick(configs, download);
      if (!profile) return refusal(notFound('no such config', 'download'), headers);
      return confAnswer(profile, headers);
    }
    let index = 0;
    const view: PageView = {
      title: settings.title,
      supportContact: settings.supportContact,
      client,
      devices: (configs?.devices ?? []).map((device) => ({
        name: device.deviceName,
        profiles: device.profiles.map((profile) => ({
          label: `${profile.hostName} · ${profile.interfaceName}`,
          body: profile.body,
          downloadHref: `?download=${index++}`,
        })),
      })),
      zipHref: settings.formats.includes('zip') ? '?format=zip' : null,
      preview: false,
      now: new Date(),
    };
    return {
      status: 200,
      type: 'text/html; charset=utf-8',
      headers: { ...headers, 'content-language': locale },
      body: await renderSubscriptionPage(view, locale),
    };
  }

  private async forApps(
    client: SubscriptionClient,
    settings: SubscriptionSettings,
    format: string,
    profileIndex: string | undefined,
    headers: Record<string, string>,
  ): Promise<PublicAnswer> {
    if (!settings.formats.includes(format as SubscriptionFormat)) {
      return refusal(
        notFound(`format must be one of: ${settings.formats.join(', ') || '(none offered)'}`, 'format'),
        headers,
      );
    }
    if (client.status !== 'active') return refusal(new ApiError(403, inactiveMessage(client), ''), headers);
    const configs = await this.profiles.knownClientConfigs(client.id, client.name);
    if (format === 'json') {
      const body = JSON.stringify({
        title: settings.title,
        supportContact: settings.supportContact,
        name: client.name,
        status: client.status,
        quotaBytes: client.quotaBytes,
        usedBytes: client.usedBytes,
        upBytes: client.upBytes,
        downBytes: client.downBytes,
        expiresAt: client.expiresAt?.toISOString() ?? null,
        expiresAfterFirstUseSeconds: client.expiresAfterFirstUseSeconds,
        devices: configs.devices.map((device) => ({
          name: device.deviceName,
          profiles: device.profiles.map((profile) => ({
            filename: profile.filename,
            hostName: profile.hostName,
            interfaceName: profile.interfaceName,
            body: profile.body,
          })),
        })),
      });
      return { status: 200, type: 'application/json; charset=utf-8', headers, body };
    }
    if (format === 'zip') {
      const { filename, zip } = await this.profiles.zipConfigs(configs);
      return {
        status: 200,
        type: 'application/zip',
        headers: { ...headers, 'content-disposition': `attachment; filename="${filename}"` },
        body: zip,
      };
    }
    const profile = pick(configs, profileIndex ?? '0');
    if (!profile) return refusal(notFound('no such config', 'profile'), headers);
    if (format === 'base64') {
      return {
        status: 200,
        type: 'text/plain; charset=utf-8',
        headers,
        body: Buffer.from(profile.body, 'utf8').toString('base64'),
      };
    }
    return confAnswer(profile, headers);
  }

  /** An unknown token: counted against the address; 404, or 429 when this miss starts a lockout. */
  private async miss(throttle: ThrottleKey): Promise<ApiError> {
    const counted = await this.throttles.countAttempt([throttle], LOCKOUT);
    if (!counted.allowed) return this.lockout(counted.lockedUntil);
    return notFound('not found', '');
  }

  private lockout(until: Date): ApiError {
    const seconds = Math.max(1, Math.ceil((until.getTime() - Date.now()) / 1000));
    return tooManyRequests('too many unknown links from this address; try again later', seconds);
  }

  // ---- one-time links ----

  /** A link that hands out one config of the device once, until it expires. */
  async createDownloadLink(
    deviceId: string,
    choice: { interfaceId?: string; hostId?: string; minutes?: number },
    origin: string,
    scope: OwnerFilter,
  ) {
    const profile = await this.profiles.deviceProfile(deviceId, scope, choice);
    await this.pruneDownloadLinks();
    const token = randomToken();
    const expiresAt = new Date(this.now().getTime() + (choice.minutes ?? 30) * 60_000);
    await this.repository.createDownloadLink({
      tokenHash: hashToken(token),
      deviceId,
      interfaceId: profile.interfaceId,
      hostId: profile.hostId,
      expiresAt,
    });
    const path = `${this.config.basePath}/${DOWNLOAD_PATH}/${token}`;
    return { url: `${origin}${path}`, path, expiresAt: expiresAt.toISOString(), filename: profile.filename };
  }

  /**
   * What `/dl/{token}` answers. Without `?download=1` a page with a button (nothing spent): chat
   * apps fetch a URL sent in a message to preview it, and that GET must not use the link up before
   * its recipient opens it. With `?download=1` the config, once. A used, expired or unknown link is
   * a 404 and counts as a guess, as on the subscription page; a client that is not active
   * (disabled, expired, exhausted) gets the page's 403 and no config.
   */
  async download(request: PublicRequest): Promise<PublicAnswer> {
    const throttle = linkThrottleKey(request.ip);
    const locked = await this.repository.lockedUntil(throttle.key);
    if (locked) return refusal(this.lockout(locked));
    const now = this.now();
    const tokenHash = isTokenShaped(request.token) ? hashToken(request.token) : undefined;
    if (request.query.download !== '1') {
      const live = tokenHash ? await this.repository.liveDownloadLink(tokenHash, now) : undefined;
      if (!live) return refusal(await this.miss(throttle));
      if (live.clientStatus !== 'active') {
        return refusal(new ApiError(403, inactiveMessage({ status: live.clientStatus }), ''));
      }
      const settings = await this.settings();
      const locale = pageLocale(request.query.lang, settings, request.acceptLanguage);
      return {
        status: 200,
        type: 'text/html; charset=utf-8',
        headers: { 'content-language': locale },
        body: renderDownloadPage({ title: settings.title, expiresAt: live.expiresAt }, locale),
      };
    }
    const spent = tokenHash ? await this.repository.spendDownloadLink(tokenHash, now) : undefined;
    if (!spent) return refusal(await this.miss(throttle));
    // As on the page: a client that is not active gets no config (the link is spent all the same).
    if (spent.clientStatus !== 'active')
      return refusal(new ApiError(403, inactiveMessage({ status: spent.clientStatus }), ''));
    let profile: Profile;
    try {
      // The link's token is the credential here (the panel serves it on its own account): every client.
      profile = await this.profiles.deviceProfile(spent.deviceId, ALL_CLIENTS, {
        interfaceId: spent.interfaceId,
        ...(spent.hostId ? { hostId: spent.hostId } : {}),
      });
    } catch (error) {
      // The device lost that account or host since the link was made: the link is spent all the same.
      if (error instanceof ApiError && error.status === 404) return refusal(notFound('not found', ''));
      throw error;
    }
    return confAnswer(profile, {});
  }

  /** Spent and expired one-time links are deleted after a day (they only matter while live). */
  async pruneDownloadLinks(): Promise<number> {
    return this.repository.pruneDownloadLinks(new Date(this.now().getTime() - 86_400_000));
  }
}

/** The stored settings, or the defaults for a value that does not read (never set, a damaged restore). */
function readSettings(stored: unknown): SubscriptionSettings {
  const parsed = storedSubscriptionSettings.safeParse(stored);
  return parsed.success
    ? parsed.data
    : { ...DEFAULT_SUBSCRIPTION_SETTINGS, formats: [...DEFAULT_SUBSCRIPTION_SETTINGS.formats] };
}

/**
 * The header client apps (Clash-style, v2rayN, Hiddify, Streisand...) read for usage: bytes up and
 * down, the quota (0: unlimited) and the expiry in Unix seconds (0: never).
 */
export function userInfoHeaders(client: SubscriptionClient, settings: SubscriptionSettings): Record<string, string> {
  const expire = client.expiresAt ? Math.floor(client.expiresAt.getTime() / 1000) : 0;
  return {
    'subscription-userinfo': `upload=${client.upBytes}; download=${client.downBytes}; total=${client.quotaBytes}; expire=${expire}`,
    'profile-title': `base64:${Buffer.from(settings.title, 'utf8').toString('base64')}`,
    'profile-update-interval': '24',
  };
}

function inactiveMessage(client: Pick<SubscriptionClient, 'status'>): string {
  return `this subscription is ${client.status}`;
}

function pick(configs: ClientConfigs, index: string): Profile | undefined {
  if (!/^\d{1,4}$/.test(index)) return undefined;
  return configs.devices.flatMap((device) => device.profiles)[Number(index)];
}

function confAnswer(profile: Profile, headers: Record<string, string>): PublicAnswer {
  return {
    status: 200,
    type: profile.mimeType,
    headers: { ...headers, 'content-disposition': `attachment; filename="${profile.filename}"` },
    body: profile.body,
  };
}

/** A refusal in the API's one shape (http/error-response.ts). */
function refusal(error: ApiError, headers: Record<string, string> = {}): PublicAnswer {
  const answer = toErrorResponse(error);
  return {
    status: answer.status,
    type: 'application/json; charset=utf-8',
    headers: { ...headers, ...answer.headers },
    body: JSON.stringify(answer.body),
  };
}

/** `?lang=` first, then the setting, then (auto) the browser's first of Persian or English. */
export function pageLocale(
  query: string | undefined,
  settings: SubscriptionSettings,
  acceptLanguage?: string,
): PageLocale {
  if (query === 'fa' || query === 'en') return query;
  if (settings.language !== 'auto') return settings.language;
  for (const part of (acceptLanguage ?? '').split(',')) {
    const tag = part.trim().split(';')[0].toLowerCase();
    if (tag === 'fa' || tag.startsWith('fa-')) return 'fa';
    if (tag === 'en' || tag.startsWith('en-')) return 'en';
  }
  return 'en';
}
