import { Inject, Injectable } from '@nestjs/common';
import { WARREN_VERSION } from '#libs/version/warren-version.js';
import type { WarrenConfig } from '../config/config.js';
import { notFound } from '../http/api-error.js';
import { WARREN_CONFIG } from '../runtime.js';
import { CATALOGUES, isLocale, LOCALES } from './catalogues.js';
import type { CatalogueDto, MetaDto } from './dto/server.response.js';

/**
 * What the panel can do, named for clients that adapt to it. Fixed by the code, not by settings:
 * the answer is public, so it says nothing about how this panel is configured or used.
 */
const FEATURES = [
  'amnezia',
  'two-factor',
  'api-tokens',
  'subscriptions',
  'backups',
  'resellers',
  'outbounds',
  'routing',
  'security-warnings',
];

/** The public answers the sign-in page and other clients read before anyone signs in. */
@Injectable()
export class MetaService {
  constructor(@Inject(WARREN_CONFIG) private readonly config: WarrenConfig) {}

  meta(): MetaDto {
    return {
      version: WARREN_VERSION,
      basePath: this.config.basePath,
      locales: [...LOCALES],
      defaultLocale: 'en',
      features: [...FEATURES],
    };
  }

  catalogue(locale: string): CatalogueDto {
    if (!isLocale(locale)) throw notFound(`no messages for locale ${locale}: ${LOCALES.join(' or ')}`, 'locale');
    return { locale, ...CATALOGUES[locale] };
  }
}
