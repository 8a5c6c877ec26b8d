import type { Page } from 'playwright-core';
import { expect } from 'vitest';

/** Elements no hostile text may ever become inside the studio's main area. */
export const ACTIVE_ELEMENTS = 'script, iframe, object, embed, style, svg, math, form, meta, base, img, details';

/**
 * Asserts that the studio's main area is inert after hostile text was shown: the canary is unset,
 * no active element exists (`elements` lets a view exempt its own, e.g. the audit chart's svg), and
 * no element carries an event handler, an inline style or a srcdoc.
 */
export async function expectMainInert(page: Page, elements: string = ACTIVE_ELEMENTS): Promise<void> {
  expect(await page.evaluate('window.__pwned')).toBeUndefined();
  expect(await page.locator(`main :is(${elements})`).count()).toBe(0);
  const handlers = (await page.evaluate(
    `[...document.querySelectorAll('main *')].flatMap((el) => [...el.attributes].map((a) => a.name))` +
      `.filter((n) => n.startsWith('on') || n === 'style' || n === 'srcdoc')`,
  )) as string[];
  expect(handlers).toEqual([]);
}
