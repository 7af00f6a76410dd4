import { Injectable } from '@nestjs/common';
import { DEFAULT_SETTINGS, type PanelSettings } from '../settings/panel-settings.js';

/**
 * The one place outbounds read panel settings from (private targets, probe URL and timeout).
 * Until the settings domain lands this answers the defaults; then it delegates to
 * SettingsService.get(), and nothing else here changes.
 */
@Injectable()
export class ProbeSettings {
  async get(): Promise<PanelSettings> {
    return { ...DEFAULT_SETTINGS };
  }
}
