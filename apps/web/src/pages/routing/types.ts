import type { Schemas } from '../../api.js';

export type Routing = Schemas['RoutingDto'];
export type Rule = Schemas['RoutingRuleDto'];
export const LISTS = [
  'domains',
  'destIps',
  'ports',
  'sourceIps',
  'sourcePorts',
  'groups',
  'clients',
  'interfaces',
] as const;
/** The lists typed as text; clients and interfaces are ids, picked by name. */
export const TEXT_LISTS = ['domains', 'destIps', 'ports', 'sourceIps', 'sourcePorts', 'groups'] as const;
