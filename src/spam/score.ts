// The spam check (POST /v1/account/spam-check): every rule of src/spam/rules.ts run over the
// message; the score is the sum of the weights of the rules it breaks, and the rating its band.
import { spamContextOf, type SpamMessage } from './message.ts';
import { SPAM_RULES } from './rules.ts';

export type SpamRating = 'good' | 'fair' | 'poor';

/** Scores below `good` rate good, below `fair` rate fair, the rest poor (README "Spam check"). */
export const RATING_THRESHOLDS = { good: 2.5, fair: 5 } as const;

export interface SpamIssue {
  rule: string;
  message: string;
  weight: number;
}

export interface SpamReport {
  score: number;
  rating: SpamRating;
  issues: SpamIssue[];
}

export const ratingOf = (score: number): SpamRating => (score < RATING_THRESHOLDS.good ? 'good' : score < RATING_THRESHOLDS.fair ? 'fair' : 'poor');

export function checkSpam(message: SpamMessage): SpamReport {
  const ctx = spamContextOf(message);
  const issues: SpamIssue[] = [];
  for (const rule of SPAM_RULES) {
    const found = rule.check(ctx);
    if (found !== undefined) issues.push({ rule: rule.id, message: found, weight: rule.weight });
  }
  // weights are tenths: round away binary fractions (0.1 + 0.2)
  const score = Math.round(issues.reduce((sum, i) => sum + i.weight, 0) * 10) / 10;
  return { score, rating: ratingOf(score), issues };
}
