import { mkdtempSync, rmSync } from 'node:fs';
import { networkInterfaces, tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Job } from 'bullmq';
import { applyJobSchema, nodeQueueName } from '#libs/contracts/node-queue.js';
import {
  PROBE_JOB,
  probeJobSchema,
  shadowsocksHopSchema,
  socksHopSchema,
  type ProbeResult,
} from '#libs/contracts/routing.js';
import { generateKeyPair } from '#libs/wireguard/keys.js';
import { runProbe } from '../../apps/agent/src/work/probe/probe.js';
import { enrol, helloAs, closeLinks, linkAgent } from '../support/agent-link-client.js';
import { startCredentialCatcher } from '../support/credential-catcher.js';
import { answer, fixtures, signedInPanel, type Schemas } from '../support/fixtures.js';
import { currentApplyJob, fakeAgentWorker, queuesOf } from '../support/node-queue.js';
import { startTestPanel } from '../support/test-panel.js';
import { waitFor } from '../support/wait-for.js';

const session = signedInPanel();
const f = fixtures(session, { unchanged: async () => [await f.count('outbounds'), await f.revisions()] });
const { typed, call, createNode, expectRefused } = f;
afterAll(() => closeLinks());

type OutboundBody = Schemas['CreateOutboundDto'];

const PEER = generateKeyPair().publicKey;

async function createOutbound(body: OutboundBody) {
  const created = await answer(typed().POST('/api/outbounds', { body }));
  expect({ status: created.status, body: created.body }).toMatchObject({ status: 201 });
  return created.body;
}

async function listOutbounds(nodeId?: string) {
  const listed = await answer(typed().GET('/api/outbounds', { params: { query: nodeId ? { nodeId } : {} } }));
  expect(listed.status).toBe(200);
  return listed.body;
}

describe('outbounds', () => {
  test('every node lists the built-ins direct and blocked, which cannot be changed or removed', async () => {
    const local = await listOutbounds();
    expect(local.map((outbound) => [outbound.tag, outbound.kind, outbound.builtin, outbound.state])).toEqual([
      ['direct', 'direct', true, 'up'],
      ['blocked', 'blocked', true, 'up'],
    ]);
    const node = await createNode();
    const remote = await listOutbounds(node.id);
    expect(remote.map((outbound) => outbound.tag)).toEqual(['direct', 'blocked']);
    expect(remote.every((outbound) => outbound.nodeId === node.id)).toBe(true);

    const direct = local.find((outbound) => outbound.tag === 'direct')!;
    await expectRefused('PATCH', `outbounds/${direct.id}`, { tag: 'plain' }, 400, 'tag', /built-in/);
    await expectRefused('PATCH', `outbounds/${direct.id}`, { enabled: false }, 400, 'enabled', /built-in/);
    await expectRefused('DELETE', `outbounds/${direct.id}`, undefined, 409, '', /built-in/);
    await expectRefused('GET', 'outbounds?nodeId=00000000-0000-4000-8000-000000000000', undefined, 404, 'nodeId');
  });

  test('a SOCKS hop: created, read, changed and deleted; its password never shown; each change bumps its node', async () => {
    const node = await createNode();
    const before = await f.revision(node.id);
    const hop = await createOutbound({
      nodeId: node.id,
      tag: 'socks-a',
      kind: 'socks',
      address: '203.0.113.7:1080',
      username: 'alice',
      password: 'socks-secret-password',
    });
    expect(hop).toMatchObject({
      tag: 'socks-a',
      kind: 'socks',
      builtin: false,
      enabled: true,
      address: '203.0.113.7:1080',
      username: 'alice',
      hasPassword: true,
      wireguard: null,
      // Its node's agent was never enrolled: nothing of the node runs (test/api/offline-node.spec.ts).
      state: 'offline',
      lastCheckAt: null,
    });
    expect(hop.slot).toBe(1);
    expect(JSON.stringify(hop)).not.toContain('socks-secret-password');
    expect(await f.revision(node.id)).toBe(before + 1);

    const read = await answer(typed().GET('/api/outbounds/{id}', { params: { path: { id: hop.id } } }));
    expect(read.body).toEqual(hop);

    const changed = await answer(
      typed().PATCH('/api/outbounds/{id}', {
        params: { path: { id: hop.id } },
        body: { tag: 'socks-b', address: '198.51.100.77:1081', password: null },
      }),
    );
    expect(changed.body).toMatchObject({ tag: 'socks-b', address: '198.51.100.77:1081', hasPassword: false, slot: 1 });
    expect(await f.revision(node.id)).toBe(before + 2);
    // A change that changes nothing does not bump.
    await answer(typed().PATCH('/api/outbounds/{id}', { params: { path: { id: hop.id } }, body: { tag: 'socks-b' } }));
    expect(await f.revision(node.id)).toBe(before + 2);

    const deleted = await answer(typed().DELETE('/api/outbounds/{id}', { params: { path: { id: hop.id } } }));
    expect(deleted.body).toEqual({ id: hop.id, deleted: true });
    expect(await f.revision(node.id)).toBe(before + 3);
    expect((await call('GET', `outbounds/${hop.id}`)).status).toBe(404);
  });

  test('a WireGuard hop gets a generated key pair (only the public key shown), a slot and an interface; a given private key gives its public key', async () => {
    const node = await createNode();
    const generated = await createOutbound({
      nodeId: node.id,
      tag: 'wg-a',
      kind: 'wireguard',
      address: '198.51.100.20:51820',
      peerPublicKey: PEER,
      tunnelAddress: '10.66.0.2',
    });
    expect(generated).toMatchObject({
      slot: 1,
      wireguard: {
        peerPublicKey: PEER,
        hasPresharedKey: false,
        allowedIps: ['0.0.0.0/0'],
        tunnelAddress: '10.66.0.2/32',
        mtu: 1420,
        keepalive: 25,
        interfaceName: 'whop1',
      },
    });
    const [stored] = await session().t.query<{ private_key: string; public_key: string }>(
      'select private_key, public_key from outbounds where id = $1',
      [generated.id],
    );
    expect(generated.wireguard!.publicKey).toBe(stored.public_key);
    expect(JSON.stringify(generated)).not.toContain(stored.private_key);

    const keys = generateKeyPair();
    const psk = generateKeyPair().privateKey;
    const given = await createOutbound({
      nodeId: node.id,
      tag: 'wg-b',
      kind: 'wireguard',
      address: 'hop.example.net:51820',
      privateKey: keys.privateKey,
      presharedKey: psk,
      peerPublicKey: PEER,
      tunnelAddress: '10.67.0.2/32',
      allowedIps: ['0.0.0.0/0', '::/0'],
      mtu: 1380,
      keepalive: 0,
    });
    expect(given).toMatchObject({
      slot: 2,
      wireguard: {
        publicKey: keys.publicKey,
        hasPresharedKey: true,
        allowedIps: ['0.0.0.0/0', '::/0'],
        mtu: 1380,
        keepalive: 0,
        interfaceName: 'whop2',
      },
    });
    expect(JSON.stringify(given)).not.toContain(keys.privateKey);
    expect(JSON.stringify(given)).not.toContain(psk);

    // The node's desired state carries its enabled hops, secrets included (the agent needs them).
    const job = applyJobSchema.parse((await currentApplyJob(session().t, node.id)).data);
    expect(job.outbounds).toEqual([
      {
        id: generated.id,
        tag: 'wg-a',
        slot: 1,
        config: expect.objectContaining({
          kind: 'wireguard',
          privateKey: stored.private_key,
          interfaceName: 'whop1',
          endpointHost: '198.51.100.20',
          endpointPort: 51820,
        }),
      },
      {
        id: given.id,
        tag: 'wg-b',
        slot: 2,
        config: expect.objectContaining({
          kind: 'wireguard',
          privateKey: keys.privateKey,
          presharedKey: psk,
          persistentKeepalive: 0,
        }),
      },
    ]);
    // A disabled hop is no longer delivered; its slot stays its own.
    await answer(
      typed().PATCH('/api/outbounds/{id}', { params: { path: { id: generated.id } }, body: { enabled: false } }),
    );
    const after = applyJobSchema.parse((await currentApplyJob(session().t, node.id)).data);
    expect(after.outbounds!.map((outbound) => outbound.tag)).toEqual(['wg-b']);
    const third = await createOutbound({ nodeId: node.id, tag: 'http-c', kind: 'http', address: '203.0.113.9:3128' });
    expect(third.slot).toBe(3);
  });

  test('shadowsocks needs its method and password; fields of another kind are refused by name; nothing is written', async () => {
    const ok = await createOutbound({
      tag: 'ss-a',
      kind: 'shadowsocks',
      address: '203.0.113.8:8388',
      method: 'chacha20-ietf-poly1305',
      password: 'ss-secret-password',
    });
    expect(ok).toMatchObject({ method: 'chacha20-ietf-poly1305', hasPassword: true, username: null });
    await expectRefused(
      'POST',
      'outbounds',
      { tag: 'ss-b', kind: 'shadowsocks', address: '203.0.113.8:8388', password: 'x' },
      400,
      'method',
    );
    await expectRefused(
      'POST',
      'outbounds',
      { tag: 'ss-b', kind: 'shadowsocks', address: '203.0.113.8:8388', method: 'aes-256-gcm' },
      400,
      'password',
    );
    await expectRefused(
      'POST',
      'outbounds',
      { tag: 'ss-b', kind: 'shadowsocks', address: '203.0.113.8:8388', method: 'rc4-md5', password: 'x' },
      400,
      'method',
    );
    await expectRefused(
      'POST',
      'outbounds',
      { tag: 'so-b', kind: 'socks', address: '203.0.113.8:1080', peerPublicKey: PEER },
      400,
      'peerPublicKey',
    );
    await expectRefused(
      'POST',
      'outbounds',
      { tag: 'wg-x', kind: 'wireguard', address: '203.0.113.8:51820', tunnelAddress: '10.1.0.2/32' },
      400,
      'peerPublicKey',
    );
    await expectRefused(
      'POST',
      'outbounds',
      {
        tag: 'wg-x',
        kind: 'wireguard',
        address: '203.0.113.8:51820',
        peerPublicKey: PEER,
        tunnelAddress: '10.1.0.2/33',
      },
      400,
      'tunnelAddress',
    );
    await expectRefused(
      'POST',
      'outbounds',
      {
        tag: 'wg-x',
        kind: 'wireguard',
        address: '203.0.113.8:51820',
        peerPublicKey: PEER,
        tunnelAddress: '10.1.0.2/32',
        allowedIps: ['0.0.0.0/0', 'nope'],
      },
      400,
      'allowedIps.1',
    );
    await expectRefused('POST', 'outbounds', { tag: 'di', kind: 'direct', address: '203.0.113.8:1' }, 400, 'kind');
    await expectRefused(
      'POST',
      'outbounds',
      { tag: 'bad tag!', kind: 'socks', address: '203.0.113.8:1080' },
      400,
      'tag',
    );
    await expectRefused('POST', 'outbounds', { tag: 'noport', kind: 'socks', address: '203.0.113.8' }, 400, 'address');
    await expectRefused(
      'POST',
      'outbounds',
      { tag: 'bigport', kind: 'socks', address: '203.0.113.8:70000' },
      400,
      'address',
    );
    await expectRefused('PATCH', `outbounds/${ok.id}`, { kind: 'socks' }, 400, 'kind');
    await expectRefused('PATCH', `outbounds/${ok.id}`, { password: null }, 400, 'password');
    // An empty password is no password; an IPv6 upstream is one redsocks and ss-redir cannot dial.
    await expectRefused(
      'POST',
      'outbounds',
      { tag: 'ss-e', kind: 'shadowsocks', address: '203.0.113.8:8388', method: 'aes-256-gcm', password: '' },
      400,
      'password',
    );
    await expectRefused('PATCH', `outbounds/${ok.id}`, { password: '' }, 400, 'password');
    await expectRefused(
      'POST',
      'outbounds',
      { tag: 'so-6', kind: 'socks', address: '[2001:db8::1]:1080' },
      400,
      'address',
    );
    await expectRefused('PATCH', `outbounds/${ok.id}`, { address: '[2001:db8::1]:8388' }, 400, 'address');
    expect(
      await createOutbound({
        tag: 'wg-6',
        kind: 'wireguard',
        address: '[2001:db8::1]:51820',
        peerPublicKey: PEER,
        tunnelAddress: '10.1.0.2/32',
      }),
    ).toMatchObject({ address: '[2001:db8::1]:51820' });
    await expectRefused('PATCH', `outbounds/${ok.id}`, { username: 'bob' }, 400, 'username');
  });

  test('a duplicate tag on the node is a 409 on tag; the same tag on another node is fine', async () => {
    await createOutbound({ tag: 'dup', kind: 'socks', address: '203.0.113.10:1080' });
    await expectRefused('POST', 'outbounds', { tag: 'dup', kind: 'http', address: '203.0.113.11:3128' }, 409, 'tag');
    await expectRefused('POST', 'outbounds', { tag: 'direct', kind: 'http', address: '203.0.113.11:3128' }, 409, 'tag');
    const other = await createOutbound({ tag: 'dup-2', kind: 'socks', address: '203.0.113.10:1080' });
    await expectRefused('PATCH', `outbounds/${other.id}`, { tag: 'dup' }, 409, 'tag');
    const node = await createNode();
    await createOutbound({ nodeId: node.id, tag: 'dup', kind: 'socks', address: '203.0.113.10:1080' });
  });

  test("hop addresses on loopback, link-local, unspecified or the panel's own addresses are refused", async () => {
    const own = Object.values(networkInterfaces())
      .flatMap((addresses) => addresses ?? [])
      .find((address) => !address.internal && address.family === 'IPv4')?.address;
    const forbidden = [
      '127.0.0.1:1080',
      '127.8.9.10:1080',
      '[::1]:1080',
      '169.254.169.254:80',
      '[fe80::1]:80',
      '0.0.0.0:1080',
      '[::]:1080',
      'localhost:1080',
      '[::ffff:127.0.0.1]:1080',
    ];
    if (own) forbidden.push(`${own}:1080`);
    for (const address of forbidden)
      await expectRefused('POST', 'outbounds', { tag: 'private', kind: 'socks', address }, 400, 'address');
    const hop = await createOutbound({ tag: 'public', kind: 'socks', address: '203.0.113.12:1080' });
    await expectRefused('PATCH', `outbounds/${hop.id}`, { address: '127.0.0.1:1080' }, 400, 'address');
    await expectRefused(
      'POST',
      'outbounds',
      {
        tag: 'wgpriv',
        kind: 'wireguard',
        address: '127.0.0.1:51820',
        peerPublicKey: PEER,
        tunnelAddress: '10.1.0.2/32',
      },
      400,
      'address',
    );
  });

  test('hop addresses in private, multicast, broadcast or reserved ranges, in any spelling, are refused unless the owner allows private targets', async () => {
    const forbidden = [
      '10.0.0.5:1080',
      '172.16.0.1:1080',
      '172.31.255.254:1080',
      '192.168.1.1:1080',
      '100.64.0.1:1080',
      '[fd00::2]:1080',
      '[fc00::1]:1080',
      '224.0.0.1:1080',
      '[ff02::1]:1080',
      '255.255.255.255:1080',
      '0.1.2.3:1080',
      '240.0.0.1:1080',
      '[::ffff:10.0.0.5]:1080',
      '[::ffff:a00:5]:1080',
      // Non-canonical spellings of loopback and mapped forms.
      '[0:0:0:0:0:0:0:1]:1080',
      '[::ffff:7f00:1]:1080',
      '[::127.0.0.1]:1080',
      '[FD00:0:0::0002]:1080',
      // IETF protocol assignments, benchmarking.
      '192.0.0.8:1080',
      '198.18.0.1:1080',
      '198.19.255.254:1080',
    ];
    // The panel host's own address written as IPv4-mapped IPv6 (compared as text, it passed).
    const own = Object.values(networkInterfaces())
      .flatMap((list) => list ?? [])
      .find((a) => !a.internal && a.family === 'IPv4')?.address;
    if (own) forbidden.push(`[::ffff:${own}]:1080`);
    for (const address of forbidden)
      await expectRefused('POST', 'outbounds', { tag: 'private', kind: 'socks', address }, 400, 'address');
    // Public neighbours of the ranges pass.
    for (const [i, address] of ['172.32.0.1:1080', '100.128.0.1:1080'].entries())
      await createOutbound({ tag: `edge-${i}`, kind: 'socks', address });
    await createOutbound({
      tag: 'edge-6',
      kind: 'wireguard',
      address: '[2001:db8::9]:51820',
      peerPublicKey: PEER,
      tunnelAddress: '10.1.0.9/32',
    });

    // The session is the owner's.
    expect((await answer(typed().PATCH('/api/settings', { body: { allowPrivateTargets: true } }))).status).toBe(200);
    const inside = await createOutbound({ tag: 'inside', kind: 'socks', address: '10.0.0.5:1080' });
    expect(inside.address).toBe('10.0.0.5:1080');
    await answer(typed().DELETE('/api/outbounds/{id}', { params: { path: { id: inside.id } } }));
    expect((await answer(typed().PATCH('/api/settings', { body: { allowPrivateTargets: false } }))).status).toBe(200);
  });

  test('IPv6 prefixes that lead on to IPv4 (NAT64, 6to4, Teredo) are refused, the embedded address named, unless the owner allows private targets', async () => {
    const wireguard = (address: string) => ({
      tag: 'via-v4',
      kind: 'wireguard',
      address,
      peerPublicKey: PEER,
      tunnelAddress: '10.1.0.3/32',
    });
    const cases: [string, RegExp][] = [
      ['[64:ff9b::a9fe:a9fe]:51820', /NAT64.*169\.254\.169\.254.*link-local/],
      ['[64:ff9b::cb00:7107]:51820', /NAT64.*203\.0\.113\.7/],
      ['[64:ff9b:1::a00:1]:51820', /local-use NAT64/],
      ['[2002:a00:1::1]:51820', /6to4.*10\.0\.0\.1/],
      ['[2001:0:4136:e378:8000:63bf:3fff:fdd2]:51820', /Teredo.*192\.0\.2\.45/],
    ];
    for (const [address, message] of cases)
      await expectRefused('POST', 'outbounds', wireguard(address), 400, 'address', message);
    await expectRefused('PATCH', 'settings', { probeUrl: 'http://[64:ff9b::808:808]/' }, 400, 'probeUrl', /NAT64/);
    await expectRefused('PATCH', 'settings', { probeUrl: 'http://198.18.0.1/' }, 400, 'probeUrl', /benchmarking/);

    expect((await answer(typed().PATCH('/api/settings', { body: { allowPrivateTargets: true } }))).status).toBe(200);
    try {
      const allowed = await createOutbound(wireguard('[2002:a00:1::1]:51820') as OutboundBody);
      expect(allowed.address).toBe('[2002:a00:1::1]:51820');
      await answer(typed().DELETE('/api/outbounds/{id}', { params: { path: { id: allowed.id } } }));
    } finally {
      expect((await answer(typed().PATCH('/api/settings', { body: { allowPrivateTargets: false } }))).status).toBe(200);
    }
  });

  test("new hops get distinct positions, after the node's others; POST /api/outbounds/order sets them, refusing a list that is not every hop once", async () => {
    const node = await createNode();
    const hops = [];
    for (const tag of ['first', 'second', 'third'])
      hops.push(await createOutbound({ nodeId: node.id, tag, kind: 'socks', address: '203.0.113.60:1080' }));
    expect(hops.map((hop) => hop.position)).toEqual([0, 1, 2]);
    const placed = await createOutbound({
      nodeId: node.id,
      tag: 'placed',
      kind: 'socks',
      address: '203.0.113.60:1080',
      position: 10,
    });
    expect(placed.position).toBe(10);
    expect(
      (await createOutbound({ nodeId: node.id, tag: 'last', kind: 'http', address: '203.0.113.60:3128' })).position,
    ).toBe(11);
    const ids = (await listOutbounds(node.id)).filter((hop) => !hop.builtin).map((hop) => hop.id);
    const [direct, blocked] = (await listOutbounds(node.id)).filter((hop) => hop.builtin);
    const other = await createOutbound({ tag: 'elsewhere', kind: 'socks', address: '203.0.113.61:1080' });
    const revision = await f.revision(node.id);

    const reversed = [...ids].reverse();
    const ordered = await answer(
      typed().POST('/api/outbounds/order', { params: { query: { nodeId: node.id } }, body: { ids: reversed } }),
    );
    expect(ordered.status).toBe(200);
    // The built-ins first, then the hops in the order given, positions 0..n-1.
    expect(ordered.body.map((hop) => [hop.id, hop.position])).toEqual([
      [direct.id, direct.position],
      [blocked.id, blocked.position],
      ...reversed.map((id, index) => [id, index]),
    ]);
    expect(await listOutbounds(node.id)).toEqual(ordered.body);
    // Display only: what the node runs is unchanged.
    expect(await f.revision(node.id)).toBe(revision);

    const path = `outbounds/order?nodeId=${node.id}`;
    for (const [body, message] of [
      [{ ids: [...reversed, reversed[0]] }, /listed twice/],
      [{ ids: reversed.slice(1) }, /every hop.*1 missing/],
      [{ ids: [...reversed, direct.id] }, /built-in/],
      [{ ids: [...reversed.slice(1), 'not-an-id'] }, /not an outbound id/],
    ] as [unknown, RegExp][])
      await expectRefused('POST', path, body, 400, 'ids', message);
    // An id naming no hop of this node (unknown, or another node's) is a 404, as in every order route.
    for (const id of [other.id, '00000000-0000-4000-8000-000000000000'])
      await expectRefused(
        'POST',
        path,
        { ids: [...reversed.slice(1), id] },
        404,
        'ids',
        /not an outbound of this node/,
      );
    await expectRefused('POST', path, { ids: 'x' }, 400, 'ids');
    await expectRefused('POST', path, {}, 400, 'ids');
    await expectRefused(
      'POST',
      'outbounds/order?nodeId=00000000-0000-4000-8000-000000000000',
      { ids: [] },
      404,
      'nodeId',
    );
    expect(await listOutbounds(node.id)).toEqual(ordered.body);

    // Owner and admin, as the other outbound writes; a viewer may not.
    const viewer = await f.createUser('viewer');
    const refused = await session().t.call('POST', path, { token: viewer.token, body: { ids } });
    expect(refused.status).toBe(403);
    const admin = await f.createUser('admin');
    const byAdmin = await session().t.call('POST', path, { token: admin.token, body: { ids } });
    expect(byAdmin.status).toBe(200);
  });

  test('the desired state carries allowPrivateTargets; changing it bumps every node with hops (its agent stops hops now forbidden)', async () => {
    const withHop = await createNode();
    const withoutHop = await createNode();
    await createOutbound({ nodeId: withHop.id, tag: 'flag-hop', kind: 'socks', address: '203.0.113.44:1080' });
    expect(applyJobSchema.parse((await currentApplyJob(session().t, withHop.id)).data).allowPrivateTargets).toBe(false);
    const [hopBefore, bareBefore] = [await f.revision(withHop.id), await f.revision(withoutHop.id)];

    expect((await answer(typed().PATCH('/api/settings', { body: { allowPrivateTargets: true } }))).status).toBe(200);
    expect(await f.revision(withHop.id)).toBe(hopBefore + 1);
    expect(await f.revision(withoutHop.id)).toBe(bareBefore);
    expect(applyJobSchema.parse((await currentApplyJob(session().t, withHop.id)).data).allowPrivateTargets).toBe(true);
    // Writing the same value again changes nothing.
    await answer(typed().PATCH('/api/settings', { body: { allowPrivateTargets: true } }));
    expect(await f.revision(withHop.id)).toBe(hopBefore + 1);

    expect((await answer(typed().PATCH('/api/settings', { body: { allowPrivateTargets: false } }))).status).toBe(200);
    expect(await f.revision(withHop.id)).toBe(hopBefore + 2);
    expect(applyJobSchema.parse((await currentApplyJob(session().t, withHop.id)).data).allowPrivateTargets).toBe(false);
  });

  test('socks and http credentials redsocks cannot read (quote, backslash, control characters) are refused', async () => {
    const cases: [Partial<OutboundBody>, string][] = [
      [{ kind: 'socks', username: 'a"b' }, 'username'],
      [{ kind: 'socks', password: 'back\\slash' }, 'password'],
      [{ kind: 'http', username: 'crlf\r\ninjected' }, 'username'],
      [{ kind: 'http', password: 'tab\there' }, 'password'],
      [{ kind: 'http', password: 'del\u007f' }, 'password'],
    ];
    for (const [body, field] of cases)
      await expectRefused('POST', 'outbounds', { tag: 'creds', address: '203.0.113.40:1080', ...body }, 400, field);
    const hop = await createOutbound({
      tag: 'creds-ok',
      kind: 'socks',
      address: '203.0.113.40:1080',
      username: 'user name',
      password: "p@ss w'rd",
    });
    await expectRefused('PATCH', `outbounds/${hop.id}`, { password: 'x"y' }, 400, 'password');
    await expectRefused('PATCH', `outbounds/${hop.id}`, { username: 'line\nbreak' }, 400, 'username');
    // ss-redir reads JSON (escaped), so a shadowsocks password may hold them.
    await createOutbound({
      tag: 'ss-quote',
      kind: 'shadowsocks',
      address: '203.0.113.41:8388',
      method: 'aes-256-gcm',
      password: 'a"b\\c',
    });
  });

  test('hop credentials holding a control character the node cannot write (C1, U+2028) are refused, shadowsocks too', async () => {
    // The agent's renderers refuse every C0/C1 control, DEL and U+2028/2029 (libs/files/config-value.ts):
    // accepted, such a hop could never run on its node.
    const cases: [Partial<OutboundBody>, string][] = [
      [{ kind: 'socks', username: 'next\u0085line' }, 'username'],
      [{ kind: 'http', password: 'line\u2028separator' }, 'password'],
      [{ kind: 'socks', password: 'csi\u009b2J' }, 'password'],
      [{ kind: 'shadowsocks', method: 'aes-256-gcm', password: 'line\nbreak' }, 'password'],
      [{ kind: 'shadowsocks', method: 'aes-256-gcm', password: 'paragraph\u2029separator' }, 'password'],
    ];
    for (const [body, field] of cases)
      await expectRefused('POST', 'outbounds', { tag: 'ctl', address: '203.0.113.44:1080', ...body }, 400, field);
    const ss = await createOutbound({
      tag: 'ss-ctl',
      kind: 'shadowsocks',
      address: '203.0.113.44:8388',
      method: 'aes-256-gcm',
      password: 'fine',
    });
    await expectRefused('PATCH', `outbounds/${ss.id}`, { password: 'next\u0085line' }, 400, 'password');
    // The job schema the agent reads the hop with says the same.
    const socks = { kind: 'socks', host: '203.0.113.44', port: 1080, username: null };
    expect(socksHopSchema.safeParse({ ...socks, password: 'a\u2028b' }).success).toBe(false);
    expect(socksHopSchema.safeParse({ ...socks, password: 'a b' }).success).toBe(true);
    const shadow = { kind: 'shadowsocks', host: '203.0.113.44', port: 8388, method: 'aes-256-gcm' };
    expect(shadowsocksHopSchema.safeParse({ ...shadow, password: 'a\u0085b' }).success).toBe(false);
    expect(shadowsocksHopSchema.safeParse({ ...shadow, password: 'a"b\\c' }).success).toBe(true);
  });

  test("a built-in's tag in any case, an all-zero hop key and a hop key pair equal to the peer's are refused", async () => {
    for (const tag of ['Direct', 'BLOCKED', 'dIrEcT'])
      await expectRefused('POST', 'outbounds', { tag, kind: 'socks', address: '203.0.113.42:1080' }, 409, 'tag');
    const hop = await createOutbound({ tag: 'case-hop', kind: 'socks', address: '203.0.113.42:1080' });
    await expectRefused('PATCH', `outbounds/${hop.id}`, { tag: 'Blocked' }, 409, 'tag');

    const zero = `${'A'.repeat(43)}=`;
    const wg = { kind: 'wireguard' as const, address: '203.0.113.43:51820', tunnelAddress: '10.1.0.2/32' };
    await expectRefused(
      'POST',
      'outbounds',
      { ...wg, tag: 'wg-zero', privateKey: zero, peerPublicKey: PEER },
      400,
      'privateKey',
    );
    const mine = generateKeyPair();
    await expectRefused(
      'POST',
      'outbounds',
      { ...wg, tag: 'wg-self', privateKey: mine.privateKey, peerPublicKey: mine.publicKey },
      400,
      'peerPublicKey',
    );
    const ok = await createOutbound({ ...wg, tag: 'wg-keys', privateKey: mine.privateKey, peerPublicKey: PEER });
    await expectRefused('PATCH', `outbounds/${ok.id}`, { privateKey: zero }, 400, 'privateKey');
    await expectRefused('PATCH', `outbounds/${ok.id}`, { peerPublicKey: mine.publicKey }, 400, 'peerPublicKey');
    const other = generateKeyPair();
    await expectRefused(
      'PATCH',
      `outbounds/${ok.id}`,
      { privateKey: other.privateKey, peerPublicKey: other.publicKey },
      400,
      'peerPublicKey',
    );
  });

  test("a hop's state comes from its agent's last apply", async () => {
    const { t } = session();
    const node = await createNode();
    const up = await createOutbound({ nodeId: node.id, tag: 'st-up', kind: 'socks', address: '203.0.113.13:1080' });
    const failed = await createOutbound({
      nodeId: node.id,
      tag: 'st-failed',
      kind: 'http',
      address: '203.0.113.14:3128',
    });
    const { credential } = await enrol(t, node.enrolment!.secret);
    const link = await helloAs(t, credential);
    const revision = await f.revision(node.id);
    link.send({
      type: 'applied',
      result: {
        revision,
        ok: false,
        interfaces: [],
        durationMs: 3,
        outbounds: [
          { tag: 'st-up', state: 'up' },
          { tag: 'st-failed', state: 'failed', error: 'redsocks is not installed' },
        ],
      },
    });
    await waitFor(
      'the apply recorded',
      async () => (await listOutbounds(node.id)).find((outbound) => outbound.id === up.id)?.state === 'up',
    );
    const listed = await listOutbounds(node.id);
    expect(listed.find((outbound) => outbound.id === failed.id)).toMatchObject({
      state: 'failed',
      stateError: 'redsocks is not installed',
    });
    // The node's page shows the same outcomes (its schema knows them).
    expect((await f.getNode(node.id)).agent?.lastApply?.outbounds).toEqual([
      { tag: 'st-up', state: 'up' },
      { tag: 'st-failed', state: 'failed', error: 'redsocks is not installed' },
    ]);
    link.socket.terminate();
  });
});

describe('hop traffic', () => {
  test("counter batches add each hop's bytes once; another node's hop adds nothing; reset one and all, audited", async () => {
    const { t } = session();
    const node = await createNode();
    const other = await createNode();
    const hop = await createOutbound({ nodeId: node.id, tag: 'counted', kind: 'socks', address: '203.0.113.7:1080' });
    const second = await createOutbound({
      nodeId: node.id,
      tag: 'counted-2',
      kind: 'socks',
      address: '203.0.113.8:1080',
    });
    const foreign = await createOutbound({
      nodeId: other.id,
      tag: 'foreign',
      kind: 'socks',
      address: '203.0.113.9:1080',
    });
    expect(hop.traffic).toEqual({ upBytes: 0, downBytes: 0, since: hop.createdAt });

    const { credential } = await enrol(t, node.enrolment!.secret);
    const link = await helloAs(t, credential);
    const batch = (seq: number, hops: { id: string; upBytes: number; downBytes: number }[]) =>
      link.send({ type: 'counters', seq, at: Date.now(), peers: [], hops });
    batch(1, [
      { id: hop.id, upBytes: 1000, downBytes: 50_000 },
      { id: foreign.id, upBytes: 7, downBytes: 7 },
    ]);
    expect(await link.next('ack')).toEqual({ type: 'ack', seq: 1 });
    // The same batch again (a resend after a lost acknowledgement): acknowledged, counted once.
    batch(1, [{ id: hop.id, upBytes: 1000, downBytes: 50_000 }]);
    expect(await link.next('ack')).toEqual({ type: 'ack', seq: 1 });
    batch(2, [
      { id: hop.id, upBytes: 24, downBytes: 0 },
      { id: second.id, upBytes: 5, downBytes: 6 },
    ]);
    expect(await link.next('ack')).toEqual({ type: 'ack', seq: 2 });
    const trafficOf = async (nodeId: string) =>
      Object.fromEntries((await listOutbounds(nodeId)).map((o) => [o.tag, [o.traffic.upBytes, o.traffic.downBytes]]));
    expect(await trafficOf(node.id)).toEqual({
      direct: [0, 0],
      blocked: [0, 0],
      counted: [1024, 50_000],
      'counted-2': [5, 6],
    });
    expect((await trafficOf(other.id)).foreign).toEqual([0, 0]);

    // Reset one: zero from now on, since moves; the other keeps its bytes.
    const reset = await answer(typed().POST('/api/outbounds/{id}/reset', { params: { path: { id: hop.id } } }));
    expect(reset.status).toBe(200);
    expect(reset.body.traffic).toMatchObject({ upBytes: 0, downBytes: 0 });
    expect(Date.parse(reset.body.traffic.since)).toBeGreaterThan(Date.parse(hop.createdAt));
    expect((await trafficOf(node.id))['counted-2']).toEqual([5, 6]);
    batch(3, [{ id: hop.id, upBytes: 10, downBytes: 20 }]);
    expect(await link.next('ack')).toEqual({ type: 'ack', seq: 3 });
    expect((await trafficOf(node.id)).counted).toEqual([10, 20]);

    // Reset all of a node: nodeId in the body (W-UI) or the query; not two different ones.
    const all = await call('POST', 'outbounds/reset', { nodeId: node.id });
    expect(all.status).toBe(200);
    expect((all.body as { tag: string; traffic: { upBytes: number } }[]).map((o) => o.traffic.upBytes)).toEqual([
      0, 0, 0, 0,
    ]);
    expect(await trafficOf(node.id)).toEqual({ direct: [0, 0], blocked: [0, 0], counted: [0, 0], 'counted-2': [0, 0] });
    const byQuery = await call('POST', `outbounds/reset?nodeId=${other.id}`);
    expect(byQuery.status).toBe(200);
    await expectRefused('POST', `outbounds/reset?nodeId=${other.id}`, { nodeId: node.id }, 400, 'nodeId', /twice/);
    await expectRefused('POST', 'outbounds/reset', { nodeId: '00000000-0000-4000-8000-000000000000' }, 404, 'nodeId');
    await expectRefused('POST', 'outbounds/00000000-0000-4000-8000-000000000000/reset', undefined, 404, 'id');
    await expectRefused('POST', 'outbounds/reset', { nodeId: node.id, all: true }, 400, 'all');
    await expectRefused('POST', 'outbounds/reset', { nodeId: 7 }, 400, 'nodeId');
    // Something that cannot be a node id is bad input, in the body or the query; an unknown node a 404.
    await expectRefused('POST', 'outbounds/reset', { nodeId: 'nope' }, 400, 'nodeId', /a node id/);
    await expectRefused('POST', 'outbounds/reset', { nodeId: '' }, 400, 'nodeId', /a node id/);
    await expectRefused('POST', 'outbounds/reset?nodeId=nope', undefined, 400, 'nodeId', /a node id/);
    await expectRefused('POST', 'outbounds/reset', [], 400, '');

    const audited = await t.query<{ route: string; target_id: string | null; outcome: string }>(
      `select route, target_id, outcome from audit_entries where action = 'outbounds.reset' and outcome <> 'refused' order by at`,
    );
    expect(audited.map((e) => [e.route, e.target_id])).toEqual([
      ['/api/outbounds/{id}/reset', hop.id],
      ['/api/outbounds/reset', null],
      ['/api/outbounds/reset', null],
    ]);
    link.socket.terminate();
  });
});

describe('probes', () => {
  /** Probe jobs a fake agent took, by outbound. */
  const taken: Job[] = [];

  test('a check is a probe job on the owning node; the agent’s answer is returned and stored on the outbound', async () => {
    const { t } = session();
    const node = await createNode();
    // Linked first: a check on a node whose agent is not linked fails at once, without a job.
    await linkAgent(t, node.enrolment!.secret);
    const hop = await createOutbound({
      nodeId: node.id,
      tag: 'probed',
      kind: 'socks',
      address: '203.0.113.15:1080',
      username: 'u',
      password: 'probe-secret',
    });
    const answerOk: ProbeResult = {
      ok: true,
      latencyMs: 42.4,
      stages: { dns: 1, connect: 10, handshake: 5, firstByte: 26 },
      errorClass: null,
      error: null,
      egressIp: '198.51.100.99',
    };
    const worker = fakeAgentWorker(t, node.id, async (job) => {
      taken.push(job);
      return job.data.mode === 'tcp'
        ? { ...answerOk, stages: { ...answerOk.stages, handshake: null, firstByte: null }, egressIp: null }
        : answerOk;
    });
    try {
      const checked = await answer(typed().POST('/api/outbounds/{id}/check', { params: { path: { id: hop.id } } }));
      expect(checked).toMatchObject({ status: 200, body: answerOk });
      const job = probeJobSchema.parse(taken[0].data);
      expect(taken[0].name).toBe(PROBE_JOB);
      expect(job).toEqual({
        outboundId: hop.id,
        mode: 'http',
        config: { kind: 'socks', host: '203.0.113.15', port: 1080, username: 'u', password: 'probe-secret' },
        url: 'http://cp.cloudflare.com/generate_204',
        timeoutMs: 5000,
        allowPrivateTargets: false,
      });
      const stored = await answer(typed().GET('/api/outbounds/{id}', { params: { path: { id: hop.id } } }));
      expect(stored.body).toMatchObject({
        latencyMs: 42,
        lastError: null,
        egressIp: '198.51.100.99',
        lastCheckAt: expect.any(String),
      });

      const tcp = await answer(
        typed().POST('/api/outbounds/{id}/check', { params: { path: { id: hop.id }, query: { mode: 'tcp' } } }),
      );
      expect(tcp.body).toMatchObject({ ok: true, egressIp: null });
      expect(probeJobSchema.parse(taken[1].data).mode).toBe('tcp');

      // direct is probed too, without a hop.
      const direct = (await listOutbounds(node.id)).find((outbound) => outbound.tag === 'direct')!;
      await answer(typed().POST('/api/outbounds/{id}/check', { params: { path: { id: direct.id } } }));
      expect(probeJobSchema.parse(taken[2].data).config).toEqual({ kind: 'direct' });

      // blocked answers without a job.
      const blocked = (await listOutbounds(node.id)).find((outbound) => outbound.tag === 'blocked')!;
      const refused = await answer(typed().POST('/api/outbounds/{id}/check', { params: { path: { id: blocked.id } } }));
      expect(refused.body).toMatchObject({ ok: false, errorClass: 'forbidden', latencyMs: null });
      expect(taken).toHaveLength(3);

      // A failed probe is stored as the last error.
      await worker.close();
      const failing = fakeAgentWorker(t, node.id, async () => ({
        ok: false,
        latencyMs: null,
        stages: { dns: 1, connect: null, handshake: null, firstByte: null },
        errorClass: 'connect',
        error: 'connection refused',
        egressIp: null,
      }));
      const down = await answer(typed().POST('/api/outbounds/{id}/check', { params: { path: { id: hop.id } } }));
      expect(down.body).toMatchObject({ ok: false, errorClass: 'connect', error: 'connection refused' });
      expect(
        (await answer(typed().GET('/api/outbounds/{id}', { params: { path: { id: hop.id } } }))).body,
      ).toMatchObject({ latencyMs: null, lastError: 'connection refused', egressIp: null });
      await failing.close();
    } finally {
      await worker.close();
    }
  });

  test('a refused probe names the host, not the internal address it resolved to (lastError is read by viewers)', async () => {
    const { t } = session();
    const node = await createNode();
    await linkAgent(t, node.enrolment!.secret);
    // Saved while private targets were allowed; then the owner turned them off.
    expect((await answer(typed().PATCH('/api/settings', { body: { allowPrivateTargets: true } }))).status).toBe(200);
    const hop = await createOutbound({ nodeId: node.id, tag: 'by-name', kind: 'socks', address: 'localhost:1080' });
    expect((await answer(typed().PATCH('/api/settings', { body: { allowPrivateTargets: false } }))).status).toBe(200);
    const workDir = mkdtempSync(join(tmpdir(), 'warren-probe-'));
    // The agent's real probe, in this process: it resolves the name (/etc/hosts) and refuses before connecting.
    const worker = fakeAgentWorker(t, node.id, (job) => runProbe(probeJobSchema.parse(job.data), { workDir }));
    try {
      const checked = await answer(typed().POST('/api/outbounds/{id}/check', { params: { path: { id: hop.id } } }));
      expect(checked.body).toMatchObject({
        ok: false,
        errorClass: 'forbidden',
        error: expect.stringMatching(/^hop localhost resolves to a forbidden address;/),
      });
      const viewer = await f.createUser('viewer');
      const read = await t.call('GET', `outbounds/${hop.id}`, { token: viewer.token });
      expect(read.body.lastError).toMatch(/resolves to a forbidden address/);
      expect(read.body.lastError).not.toMatch(/127\.0\.0\.1|loopback/);
    } finally {
      await worker.close();
      rmSync(workDir, { recursive: true, force: true });
    }
  });

  test('with its agent linked but not answering, a check answers ok:false, errorClass timeout, and withdraws its job', async () => {
    const node = await createNode();
    await linkAgent(session().t, node.enrolment!.secret);
    const hop = await createOutbound({ nodeId: node.id, tag: 'lonely', kind: 'http', address: '203.0.113.16:3128' });
    const checked = await answer(typed().POST('/api/outbounds/{id}/check', { params: { path: { id: hop.id } } }));
    expect(checked).toMatchObject({
      status: 200,
      body: { ok: false, errorClass: 'timeout', latencyMs: null, egressIp: null },
    });
    expect(checked.body.error).toMatch(/no answer from the agent/);
    const stored = (await answer(typed().GET('/api/outbounds/{id}', { params: { path: { id: hop.id } } }))).body;
    expect(stored).toMatchObject({ lastCheckAt: expect.any(String), lastError: expect.stringMatching(/no answer/) });
    const queue = queuesOf(session().t).queue(nodeQueueName(node.id));
    expect((await queue.getJobs(['waiting'])).filter((job) => job.name === PROBE_JOB)).toEqual([]);
  }, 30_000);

  test('on the PostgreSQL queue backend (no REDIS_URL) a check is answered the same way', async () => {
    const other = await startTestPanel({ REDIS_URL: '' });
    try {
      expect(queuesOf(other).kind).toBe('postgres');
      const token = await other.login();
      const created = await other.call('POST', 'outbounds', {
        token,
        body: { tag: 'pg-hop', kind: 'socks', address: '203.0.113.17:1080' },
      });
      expect(created.status).toBe(201);
      const result: ProbeResult = {
        ok: true,
        latencyMs: 7,
        stages: { dns: null, connect: 7, handshake: null, firstByte: null },
        errorClass: null,
        error: null,
        egressIp: null,
      };
      const [local] = await other.query<{ id: string }>('select id from nodes where is_local');
      const worker = fakeAgentWorker(other, local.id, async (job) => (job.name === PROBE_JOB ? result : undefined));
      try {
        const checked = await other.call('POST', `outbounds/${created.body.id}/check?mode=tcp`, { token });
        expect(checked).toMatchObject({ status: 200, body: result });
      } finally {
        await worker.close();
      }
    } finally {
      await other.stop();
    }
  }, 60_000);

  test('an unknown outbound is a 404', async () => {
    await expectRefused('POST', 'outbounds/00000000-0000-4000-8000-000000000000/check', undefined, 404, 'id');
    await expectRefused('POST', 'outbounds/not-an-id/check', undefined, 404, 'id');
  });
});

describe("a hop's password does not follow a change of its address", () => {
  const SECRET = 'owners-upstream-password';

  /**
   * The attack of issue 19 item 1: the owner's SOCKS hop has a password an admin never reads; the
   * admin points the hop at a listener of theirs (by PATCH, then by template import) and runs the
   * check. The check runs the agent's real probe (in this process, on loopback only), so whatever
   * credentials the hop holds reach the address it names.
   */
  test('an admin moving a hop without giving the password again is refused (PATCH and template import); the listener receives nothing', async () => {
    const { t } = session();
    const upstream = await startCredentialCatcher();
    const attacker = await startCredentialCatcher();
    const workDir = mkdtempSync(join(tmpdir(), 'warren-probe-'));
    const node = await createNode();
    await linkAgent(t, node.enrolment!.secret);
    const worker = fakeAgentWorker(t, node.id, (job) => runProbe(probeJobSchema.parse(job.data), { workDir }));
    const settings = { allowPrivateTargets: true, probeUrl: `http://127.0.0.1:${upstream.port}/` };
    expect((await answer(typed().PATCH('/api/settings', { body: settings }))).status).toBe(200);
    try {
      const hop = await createOutbound({
        nodeId: node.id,
        tag: 'owners-socks',
        kind: 'socks',
        address: `127.0.0.1:${upstream.port}`,
        username: 'owner',
        password: SECRET,
      });
      const admin = await f.createUser('admin');
      const asAdmin = (method: string, path: string, body?: unknown) =>
        t.call(method, path, { token: admin.token, body });
      const check = async () => {
        const checked = await asAdmin('POST', `outbounds/${hop.id}/check`);
        expect(checked.status).toBe(200);
        return checked.body as ProbeResult;
      };
      const attackerAddress = `127.0.0.1:${attacker.port}`;

      const patched = await asAdmin('PATCH', `outbounds/${hop.id}`, { address: attackerAddress });
      expect({ status: patched.status, body: patched.body }).toMatchObject({
        status: 400,
        body: { field: 'password', error: expect.stringMatching(/requires the password again/) },
      });
      // The check still goes where the owner said: the password reaches the owner's server only.
      expect(await check()).toMatchObject({ ok: false, errorClass: 'auth' });
      expect(upstream.received()).toContain(SECRET);
      expect(attacker.received()).toBe('');

      // Through the template: the admin's export has no secrets; its address changed is refused by name.
      const template = (await asAdmin('GET', 'template?section=outbounds')).body as {
        outbounds: { tag: string; address: string }[];
      };
      const row = template.outbounds.findIndex((outbound) => outbound.tag === 'owners-socks');
      template.outbounds[row].address = attackerAddress;
      const imported = await asAdmin('PUT', 'template?section=outbounds', template);
      expect({ status: imported.status, body: imported.body }).toMatchObject({
        status: 400,
        body: { field: `outbounds.${row}.password` },
      });
      expect(
        (await answer(typed().GET('/api/outbounds/{id}', { params: { path: { id: hop.id } } }))).body,
      ).toMatchObject({ address: `127.0.0.1:${upstream.port}`, hasPassword: true });
      await check();
      expect(attacker.received()).toBe('');

      // Moved with a password of the admin's own, the hop goes there with that one, never the owner's.
      const moved = await asAdmin('PATCH', `outbounds/${hop.id}`, { address: attackerAddress, password: 'admins-own' });
      expect(moved.status).toBe(200);
      await check();
      expect(attacker.received()).toContain('admins-own');
      expect(attacker.received()).not.toContain(SECRET);
    } finally {
      await worker.close();
      await answer(
        typed().PATCH('/api/settings', {
          body: { allowPrivateTargets: false, probeUrl: 'http://cp.cloudflare.com/generate_204' },
        }),
      );
      await upstream.close();
      await attacker.close();
      rmSync(workDir, { recursive: true, force: true });
    }
  });

  test('every kind that sends a password: a new address or port needs it again (any role); the same address, a cleared password or a WireGuard endpoint do not', async () => {
    // Host names below are never resolved: with private targets allowed nothing is looked up
    // (the resolver of this machine is not on loopback).
    expect((await answer(typed().PATCH('/api/settings', { body: { allowPrivateTargets: true } }))).status).toBe(200);
    try {
      await passwordMoves();
    } finally {
      await answer(typed().PATCH('/api/settings', { body: { allowPrivateTargets: false } }));
    }
  });

  async function passwordMoves() {
    const node = await createNode();
    const socks = await createOutbound({
      nodeId: node.id,
      tag: 'pw-socks',
      kind: 'socks',
      address: '203.0.113.50:1080',
      password: SECRET,
    });
    const http = await createOutbound({
      nodeId: node.id,
      tag: 'pw-http',
      kind: 'http',
      address: 'proxy.example.com:3128',
      username: 'u',
      password: SECRET,
    });
    const ss = await createOutbound({
      nodeId: node.id,
      tag: 'pw-ss',
      kind: 'shadowsocks',
      address: '203.0.113.51:8388',
      method: 'aes-256-gcm',
      password: SECRET,
    });
    for (const [hop, address] of [
      [socks, '203.0.113.50:1081'],
      [http, '203.0.113.52:3128'],
      [ss, 'ss.example.com:8388'],
    ] as const)
      await expectRefused('PATCH', `outbounds/${hop.id}`, { address }, 400, 'password', /requires the password again/);
    // The same place spelled the same or differently, and other changes, keep the password.
    await answer(
      typed().PATCH('/api/outbounds/{id}', {
        params: { path: { id: http.id } },
        body: { address: 'PROXY.example.com.:3128' },
      }),
    );
    const renamed = await answer(
      typed().PATCH('/api/outbounds/{id}', {
        params: { path: { id: socks.id } },
        body: { address: '203.0.113.50:1080', username: 'new-user', note: 'same server' },
      }),
    );
    expect(renamed).toMatchObject({ status: 200, body: { hasPassword: true, username: 'new-user' } });
    // Cleared, nothing is sent: the move is allowed.
    const cleared = await answer(
      typed().PATCH('/api/outbounds/{id}', {
        params: { path: { id: socks.id } },
        body: { address: '203.0.113.53:1080', password: null },
      }),
    );
    expect(cleared).toMatchObject({ status: 200, body: { address: '203.0.113.53:1080', hasPassword: false } });
    // Without a password there is nothing to follow.
    const moved = await answer(
      typed().PATCH('/api/outbounds/{id}', {
        params: { path: { id: socks.id } },
        body: { address: '203.0.113.54:1080' },
      }),
    );
    expect(moved.status).toBe(200);
    // A WireGuard handshake reveals neither key: its endpoint moves without them.
    const wg = await createOutbound({
      nodeId: node.id,
      tag: 'pw-wg',
      kind: 'wireguard',
      address: '203.0.113.55:51820',
      peerPublicKey: PEER,
      presharedKey: generateKeyPair().publicKey,
      tunnelAddress: '10.77.0.2/32',
    });
    const wgMoved = await answer(
      typed().PATCH('/api/outbounds/{id}', {
        params: { path: { id: wg.id } },
        body: { address: '203.0.113.56:51820' },
      }),
    );
    expect(wgMoved).toMatchObject({ status: 200, body: { wireguard: { hasPresharedKey: true } } });
  }
});
