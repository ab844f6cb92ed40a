// Erases the signup-form submissions nobody confirmed before their link ran out (README "Signup
// forms"): a batch a round while there are any; else it looks again every minute.
import type { Engage } from '../context.ts';
import { expireSubmissions } from '../forms/service.ts';
import { WorkerLoop } from './loop.ts';

const IDLE_MS = 60_000;

export class FormSubmissionSweeper extends WorkerLoop {
  constructor(private readonly engage: Engage) {
    super(engage, { name: 'form submission sweeper', idleMs: IDLE_MS });
  }

  protected round(): Promise<number> {
    return expireSubmissions(this.engage);
  }
}
