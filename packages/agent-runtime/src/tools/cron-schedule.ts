import { CronExpressionParser } from 'cron-parser';
import { TrustError } from '@trust/core';

/** A cron schedule as stored in `adf_timers.schedule` (`{ kind: 'cron', cron, tz }`). */
export interface CronSchedule {
  /**
   * Five fields (minute hour day-of-month month day-of-week), six with leading seconds, or a macro such as `@daily`.
   */
  readonly cron: string;
  /** IANA time zone the fields are read in (default `UTC`). */
  readonly tz: string;
}

const HINT =
  'use five fields "minute hour day-of-month month day-of-week", e.g. "*/15 * * * *" (every 15 minutes) or ' +
  '"0 9 * * 1-5" (09:00 on weekdays); a sixth leading field is seconds; macros like "@daily" work too';
const SHORT_FIX = '; write five fields like "*/15 * * * *" or "0 9 * * 1-5"';
const MACRO = /^@(yearly|annually|monthly|weekly|daily|hourly|midnight)$/i;

/**
 * Validates a cron expression and time zone; returns the normalised schedule or throws
 * `TIMER_CRON_INVALID` with a hint. The parsing and every next-wake computation are cron-parser's.
 *
 * @example
 * ```ts
 * parseCronSchedule('0 9 * * 1-5', 'Europe/Berlin'); // { cron: '0 9 * * 1-5', tz: 'Europe/Berlin' }
 * ```
 */
export function parseCronSchedule(cron: string, tz = 'UTC'): CronSchedule {
  const expr = cron.trim().replace(/\s+/g, ' ');
  const fields = expr.split(' ').length;
  if (!MACRO.test(expr) && fields !== 5 && fields !== 6) {
    throw new TrustError(
      'TIMER_CRON_INVALID',
      `cron "${expr.slice(0, 100)}" has ${fields} field(s), not 5 or 6${SHORT_FIX}`,
      { hint: HINT },
    );
  }
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: tz });
  } catch {
    throw new TrustError('TIMER_CRON_INVALID', `time zone "${tz.slice(0, 64)}" is not an IANA time zone`, {
      hint: 'use e.g. "UTC", "Europe/Berlin" or "America/New_York"',
    });
  }
  const schedule = { cron: expr, tz };
  nextCronWake(schedule, new Date(0)); // throws on a field that is out of range or never matches
  return schedule;
}

/**
 * The first time strictly after `after` at which the schedule fires. Throws `TIMER_CRON_INVALID`
 * when the expression cannot be evaluated.
 */
export function nextCronWake(schedule: CronSchedule, after: Date): Date {
  try {
    return CronExpressionParser.parse(schedule.cron, { currentDate: after, tz: schedule.tz }).next().toDate();
  } catch (e) {
    throw new TrustError(
      'TIMER_CRON_INVALID',
      `cron "${schedule.cron.slice(0, 100)}" is invalid: ${e instanceof Error ? e.message : String(e)}${SHORT_FIX}`,
      { hint: HINT, cause: e },
    );
  }
}
