/**
 * Stand-in until the settings domain lands (GET/PATCH /api/settings, SettingsService): the
 * panel-wide settings the outbounds domain reads. Replaced by the real module's type.
 */
export interface PanelSettings {
  /** Hop addresses and probe targets on loopback, link-local or the panel's own addresses are refused unless true. */
  allowPrivateTargets: boolean;
  /** What an http probe fetches through the hop. */
  probeUrl: string;
  /** How long the agent gives one probe. */
  probeTimeoutMs: number;
}

export const DEFAULT_SETTINGS: PanelSettings = {
  allowPrivateTargets: false,
  probeUrl: 'http://cp.cloudflare.com/generate_204',
  probeTimeoutMs: 5000,
};
