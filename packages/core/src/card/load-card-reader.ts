import { LazyModule } from '../util/lazy-module.js';
import type * as CardReaderModule from './normalize-card.js';

/** The reader of both card versions: `normalizeCard`, `givenCard`. */
export type CardReader = typeof CardReaderModule;

/**
 * The card reader (both versions' shapes, checked and normalized; D1) is needed only once the card's
 * body is here: `connect()` starts loading it as it asks for the card, so its chunk arrives during that
 * round trip and a web app's first request goes out without it (D26).
 */
export const cardReader = new LazyModule<CardReader>("Tether's card reader", () => import('./normalize-card.js'));
