import { createA2AError } from '@a2a-tether/node';
import { openClient } from '../agent/open-client.js';
import { CliError } from '../errors/cli-error.js';
import { cardText, field } from '../output/text.js';
import { validateCard } from './validate-card.js';
import type { RunContext } from './context.js';

/** `card get [--validate] [--extended]`: fetch (or read) the agent card and show it. */
export async function cardGet(context: RunContext, flags: { validate?: boolean | undefined; extended?: boolean | undefined }): Promise<void> {
  const { io, globals } = context;
  const client = await openClient(context);
  let card = client.card;
  if (flags.extended) {
    // Capability checked on the card first (spec §13.3): no request for an extended card it does not offer.
    if (!card.capabilities.extendedAgentCard) {
      throw createA2AError(-32007, `the card of "${card.name}" does not offer an extended card (capabilities.extendedAgentCard)`);
    }
    card = await client.getExtendedCard();
  }
  if (flags.validate) {
    const problems = validateCard(card.raw);
    if (problems.length > 0) {
      throw new CliError('A2ACLI_ERR_CARD_INVALID', `the agent card does not follow the A2A schema: ${problems.join('; ')}`, 'fix the card: each problem names the field');
    }
  }
  if (globals.output === 'json') {
    io.out(`${JSON.stringify(card.raw, null, 2)}\n`);
    return;
  }
  let out = cardText(card, client.cardUrl, globals.verbose);
  if (flags.validate) out = field('Valid', true) + out;
  io.out(out);
}
