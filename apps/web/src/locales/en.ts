/** English: the complete set of the panel's words; other languages are checked against its keys. */
export const en = {
  nav: { menu: 'Menu', overview: 'Overview', clients: 'Clients', interfaces: 'Interfaces', hosts: 'Hosts', outbounds: 'Outbounds', routing: 'Routing', template: 'Template', nodes: 'Nodes', backups: 'Backups', system: 'System', settings: 'Settings', api: 'API' },
  header: { language: 'Language', theme: 'Light or dark theme', account: 'Account', password: 'Change password', signOut: 'Sign out' },
  roles: { owner: 'Owner', admin: 'Admin', viewer: 'Viewer' },
  connection: { lost: 'Connection to the panel lost', retrying: 'Retrying… what you typed is kept.' },
  common: {
    name: 'Name', save: 'Save', saved: 'Saved', create: 'Create', edit: 'Edit', delete: 'Delete', cancel: 'Cancel', confirm: 'Confirm',
    areYouSure: 'Are you sure?', copy: 'Copy', copied: 'Copied', download: 'Download', search: 'Search',
  },
  signIn: { title: 'Sign in to Warren', username: 'Username', password: 'Password', submit: 'Sign in' },
  account: { current: 'Current password', new: 'New password (at least 8 characters)', changed: 'Password changed; your other sessions were signed out' },
  overview: {
    updated: 'Updated {{at}}', clients: 'Clients', clientStates: '{{active}} active · {{disabled}} disabled · {{expired}} expired · {{exhausted}} exhausted',
    devicesOnline: 'Devices online', traffic: 'Traffic', nodesInSync: 'Nodes in sync', nodeStates: '{{behind}} behind · {{offline}} offline',
    host: 'Controller host', panel: 'Panel', version: 'Version', uptime: 'Uptime', backends: 'Database · queue', interfaces: 'Interfaces',
    lastBackup: 'Last backup', lastEnforcement: 'Last quota and expiry check', never: 'never',
  },
  agentState: { 'never-enrolled': 'never enrolled', enrolled: 'enrolled', connected: 'connected', disconnected: 'disconnected' },
  clients: {
    sortLabel: 'Order', sort: { newest: 'Newest first', oldest: 'Oldest first', name: 'By name', traffic: 'Most traffic', remaining: 'Least remaining', expiry: 'Expiring soonest' },
    new: 'New client', searchPlaceholder: 'Search name, note or Telegram ID', anyStatus: 'Any status', statusLabel: 'Status', group: 'Group', groups: 'Groups',
    status: { active: 'active', disabled: 'disabled', expired: 'expired', exhausted: 'exhausted' },
    empty: 'No clients yet. Create an interface first, then press “New client”.', noMatch: 'No client matches these filters.',
    usage: 'Usage', devices: 'Devices', expires: 'Expires', total: '{{count}} clients', total_one: '{{count}} client', total_other: '{{count}} clients',
    interfaces: 'Interfaces', noInterfaces: 'No interfaces: create one on the Interfaces page', quotaGb: 'Quota (GB)', zeroUnlimited: '0 means unlimited',
    deviceNames: 'First devices', deviceNamesHelp: 'Names of the devices made with the client (none: one named device-1)',
    deviceLimit: 'Device limit', resetCycle: 'Traffic reset', cycle: { none: 'never', daily: 'daily', weekly: 'weekly', monthly: 'monthly' },
    telegramId: 'Telegram ID', note: 'Note', enabled: 'Enabled', lastHandshake: 'Last handshake', configs: 'Configs and QR codes',
    reset: 'Reset traffic', resetDone: 'Traffic reset to zero', rotate: 'New keys', rotated: 'New keys made: download the profiles again',
    confirmReset: 'Reset the traffic of {{name}} to zero?', confirmRotate: 'Make new keys for every device of {{name}}? Its current profiles stop working.',
    confirmDelete: 'Delete {{name}} with all its devices? Its profiles stop working.', confirmDeleteDevice: 'Delete the device {{name}}? Its profiles stop working.',
    deviceName: 'New device name', addDevice: 'Add device', online: 'online', offline: 'offline', downloadProfiles: 'Profiles',
    noConfigs: 'No configs: attach the client to an interface.', downloadZip: 'All as zip', qr: 'QR code',
  },
  interfaces: {
    new: 'New interface', empty: 'No interfaces yet: create one to start adding clients.', mode: 'Mode', endpoint: 'Endpoint', subnet: 'Subnet',
    addresses: 'Addresses', clientsDevices: '{{clients}} clients, {{devices}} devices', state: 'State', running: 'running', pending: 'applying', disabled: 'disabled',
    confirmDelete: 'Delete the interface {{name}}?', confirmDeleteUsed: 'Delete the interface {{name}} and the {{devices}} device accounts on it?',
    node: 'Node', localNode: 'The local node', endpointHost: 'Endpoint host (what clients dial)', listenPort: 'Listen port', enabled: 'Enabled',
    subnetNote: 'The subnet can change only while no addresses are allocated.',
  },
  hosts: {
    new: 'New host', empty: 'No hosts: clients dial the interface’s endpoint. Add a host for another address.', needInterface: 'Create an interface first.',
    interface: 'Interface', address: 'Address', port: 'Port', portZero: '0 means the interface’s port', priority: 'Priority', enabled: 'Enabled', disabled: 'disabled',
    confirmDelete: 'Delete the host {{name}}?',
  },
  outbounds: {
    new: 'New outbound', empty: 'Only the built-in outbounds (direct, blocked). Add a hop to send traffic through another server.',
    tag: 'Tag', tagHelp: 'Letters, digits, - and _: rules name the outbound by it', kind: 'Kind', address: 'Server (host:port)', lastCheck: 'Last check',
    kinds: { socks: 'SOCKS5', http: 'HTTP CONNECT', shadowsocks: 'Shadowsocks', wireguard: 'WireGuard' },
    state: { up: 'up', failed: 'failed', disabled: 'disabled', unknown: 'not checked' },
    builtin: 'built in', check: 'Check', checkOf: 'Check of {{tag}}', reachable: 'reachable', unreachable: 'unreachable', egress: 'Leaves as',
    stage: { dns: 'DNS', connect: 'Connect', handshake: 'Handshake', firstByte: 'First byte' },
    errorClass: { dns: 'DNS', connect: 'Connect', timeout: 'Timeout', handshake: 'Handshake', auth: 'Authentication', upstream: 'Upstream', http: 'HTTP', forbidden: 'Forbidden target', unsupported: 'Unsupported', internal: 'Internal' },
    username: 'Username', password: 'Password', keepPassword: 'unchanged', method: 'Cipher', peerPublicKey: 'Peer public key', tunnelAddress: 'Tunnel address',
    presharedKey: 'Preshared key (optional)', allowedIps: 'Allowed IPs', keepalive: 'Keepalive (s)',
    confirmDelete: 'Delete the outbound {{tag}}? Rules that use it must be changed first.',
  },
  routing: {
    newRule: 'New rule', rules: 'Rules', rulesHelp: 'The first rule that matches decides; drag the handle to change the order.',
    empty: 'No rules: all traffic takes the default outbound. Add a rule to send some of it elsewhere.',
    drag: 'Move {{name}}', hits: '{{count}} hits', hits_one: '{{count}} hit', hits_other: '{{count}} hits',
    outbound: 'Outbound', network: 'Network', anyNetwork: 'any', allMustMatch: 'Every criterion given must match; at least one is needed.',
    confirmDelete: 'Delete the rule {{name}}?', defaultOutbound: 'Default outbound', blockBitTorrent: 'Block BitTorrent', failClosed: 'Fail closed (block when a hop is down)',
    lists: { domains: 'Domains', destIps: 'Destination IPs', ports: 'Ports', sourceIps: 'Source IPs', sourcePorts: 'Source ports', groups: 'Client groups', clients: 'Client ids', interfaces: 'Interface ids' },
    basic: { blockDomains: 'Blocked domains', blockIps: 'Blocked IPs', blockPorts: 'Blocked ports', directDomains: 'Direct domains', directIps: 'Direct IPs' },
  },
  template: {
    import: 'Import', all: 'Everything', section: 'Section', importOf: 'Import {{name}}', notObject: 'not a template (a JSON object)',
    previewHelp: 'Rows are matched by name: matched rows are updated, the others created, nothing is deleted. Every row is checked before anything is written.',
    willCreate: 'Will create', willUpdate: 'Will update', created: 'Created', updated: 'Updated',
    skipped: '{{count}} skipped', skipped_one: '{{count}} skipped', skipped_other: '{{count}} skipped',
    sections: { nodes: 'Nodes', interfaces: 'Interfaces', hosts: 'Hosts', outbounds: 'Outbounds', routing: 'Routing', rules: 'Rules', settings: 'Settings' },
  },
  nodes: {
    new: 'Add node', address: 'Address', note: 'Note', agent: 'Agent', sync: 'Sync', interfaces: 'Interfaces', local: 'local', inSync: 'in sync', behind: 'behind',
    enrolment: 'Enrolment command', enrolCommand: 'Enrol the agent of {{name}}', enrolHelp: 'Run this on the node as root. The secret works once, until {{expires}}.',
    confirmDelete: 'Delete the node {{name}} and its interfaces?',
  },
  tokens: {
    title: 'API tokens', name: 'Token name', issue: 'Issue token', issuedTitle: 'Token “{{name}}” issued', shownOnce: 'Copy it now: it is shown only this once.',
    empty: 'No API tokens. Issue one to call the API from scripts.', hint: 'Hint', owner: 'Owner', lastUsed: 'Last used', enabled: 'Enabled',
    confirmDelete: 'Delete the token {{name}}? Scripts using it stop working.',
  },
  backups: {
    create: 'Create backup', created: 'Backup created', upload: 'Upload', uploaded: 'Backup uploaded', restore: 'Restore', restored: 'Backup restored',
    empty: 'No backups yet. Press “Create backup”.', size: 'Size', createdAt: 'Made', ownerOnly: 'Only the owner manages backups.', waiting: 'Waiting…',
    running: { backup: 'Making a backup', restore: 'Restoring' },
    stage: { database: 'Database', nodes: 'Node state', packing: 'Packing', checking: 'Checking', restoring: 'Restoring', retention: 'Old backups', done: 'Done' },
    confirmRestore: 'Restore {{name}}? Everything made since it is replaced.', confirmDelete: 'Delete the backup {{name}}?',
  },
  system: {
    host: 'Host', controller: 'Controller', cpu: 'CPU', memory: 'Memory', disk: 'Disk', swap: 'Swap', network: 'Network', load: 'Load', rss: 'Panel memory',
    cpuMemory: 'CPU, memory and disk',
  },
  settings: {
    backupIntervalHours: 'Backup every (hours)', zeroOff: '0 turns scheduled backups off', backupKeep: 'Backups kept', probeUrl: 'Probe URL',
    probeTimeoutMs: 'Probe timeout (ms)', allowPrivateTargets: 'Allow private addresses as outbound and probe targets',
  },
  apiDocs: {
    intro: 'Every endpoint of the panel’s API. The panel itself uses only these. Set WARREN_TOKEN to an API token (Nodes → API tokens) and paste a command.',
    auth: 'Authentication', public: 'public', roles: 'Roles', query: 'Query', example: 'Example body',
  },
};

type Shape<T> = { [K in keyof T]: T[K] extends string ? string : Shape<T[K]> };
/** Every language has every key English has. */
export type Translation = Shape<typeof en>;
