import { Injectable } from '@nestjs/common';
import { generateKeyPair } from '#libs/wireguard/keys.js';
import { mapInParallel } from '../common/in-parallel.js';
import { ApiError, badRequest, notFound } from '../http/api-error.js';
import { StrictValidationPipe } from '../http/validation.js';
import { CreateOutboundDto, type ProbeMode } from './dto/outbound.dto.js';
import type {
  HopCheckDto,
  KeyPairDto,
  OutboundConfigDto,
  ParsedOutboundDto,
  ParseOutboundDto,
} from './dto/outbound-tools.dto.js';
import { HOP_CHECK_PARALLEL } from './hop-checks.scheduler.js';
import { renderOutboundConfig } from './outbound-config.js';
import { OutboundsRepository } from './outbounds.repository.js';
import { OutboundsService } from './outbounds.service.js';
import { ProbesService } from './probes.service.js';
import { parseShareText, ShareLinkError } from './share-links.js';

/** The hop tools beside create/change: share links in and out, checking every hop, key pairs. */
@Injectable()
export class OutboundToolsService {
  private readonly pipe = new StrictValidationPipe();

  constructor(
    private readonly outbounds: OutboundsService,
    private readonly repository: OutboundsRepository,
    private readonly probes: ProbesService,
  ) {}

  /**
   * A link or file to a create body, checked by the create route's own rules (its DTO, then
   * validateCreate): what is wrong is a 400 on `text` naming the field of the hop it would be
   * (on `tag` when the caller's tag is at fault).
   */
  async parse(input: ParseOutboundDto): Promise<ParsedOutboundDto> {
    const { outbound, ignored } = await this.read(input.text, input.tag);
    return { outbound, ignored };
  }

  /**
   * A link or file read and checked as parse does; answers the body and what the create route
   * would store (the address and the kind's columns), for subscriptions to place it themselves.
   */
  async read(text: string, tag?: string) {
    let parsed;
    try {
      parsed = parseShareText(text, tag);
    } catch (error) {
      if (error instanceof ShareLinkError) throw badRequest(error.message, 'text');
      throw error;
    }
    try {
      const body = (await this.pipe.transform(parsed.body, {
        type: 'body',
        metatype: CreateOutboundDto,
      })) as CreateOutboundDto;
      const checked = await this.outbounds.validateCreate(body);
      return { outbound: parsed.body as CreateOutboundDto, ignored: parsed.ignored, ...checked };
    } catch (error) {
      if (!(error instanceof ApiError) || error.status >= 500) throw error;
      const field = error.field === 'tag' && tag !== undefined ? 'tag' : 'text';
      throw badRequest(
        `the outbound it gives would be refused${error.field ? ` (${error.field})` : ''}: ${error.message}`,
        field,
      );
    }
  }

  /**
   * Checks every enabled hop of the node (not the built-ins), HOP_CHECK_PARALLEL at a time (the
   * periodic checks' bound), each as `POST /api/outbounds/{id}/check` would; in list order.
   */
  async checkAll(nodeId: string | undefined, mode: ProbeMode): Promise<HopCheckDto[]> {
    const hops = (await this.outbounds.list(nodeId)).filter((hop) => !hop.builtin && hop.enabled);
    const results = await mapInParallel(hops, HOP_CHECK_PARALLEL, async (hop) => {
      try {
        return { id: hop.id, tag: hop.tag, result: await this.probes.check(hop.id, mode) };
      } catch (error) {
        // Deleted while the others were checked: nothing to report for it.
        if (error instanceof ApiError && error.status === 404) return null;
        throw error;
      }
    });
    return results.filter((entry) => entry !== null);
  }

  async config(id: string, withSecrets: boolean): Promise<OutboundConfigDto> {
    const row = await this.repository.find(id);
    if (!row) throw notFound('outbound not found', 'id');
    const text = renderOutboundConfig(row, withSecrets);
    const format =
      row.kind === 'wireguard' ? 'wg-quick' : row.kind === 'direct' || row.kind === 'blocked' ? null : 'link';
    return { id: row.id, tag: row.tag, kind: row.kind, format, text, secretsHidden: !withSecrets };
  }

  keyPair(): KeyPairDto {
    return generateKeyPair();
  }
}
