/**
 * A command line its command cannot read (an option it does not implement, a missing value):
 * the command is refused with `status` (2, as GNU tools do for usage errors) and this message,
 * before anything runs.
 */
export class UsageError extends Error {
  constructor(
    message: string,
    readonly status = 2,
  ) {
    super(message);
  }
}
