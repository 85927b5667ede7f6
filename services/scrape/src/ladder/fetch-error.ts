import type { PageErrorCode } from '@tidemark/contracts';

/** A fetch that got no page at all: the ladder records it with its errorCode. */
export class FetchFailure extends Error {
  constructor(
    readonly errorCode: Extract<PageErrorCode, 'TIMEOUT' | 'NETWORK'>,
    message: string,
    cause?: unknown,
  ) {
    super(message, { cause });
    this.name = 'FetchFailure';
  }
}
