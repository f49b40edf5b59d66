// The duration histograms of the reports' daily rollup (migration 0029, conversation_days): 185 log-spaced buckets,
// each histogram stored over the span of buckets it has counted in.
// Bucket 1 holds [0, 0.5 s); bucket k > 1 holds [0.5 s · 2^((k-2)/8), 0.5 s · 2^((k-1)/8)), 9 % wide; the last also
// holds everything longer. The database counts values into buckets (conversation_bucket); here histograms are added
// up and read as percentiles.

export const HISTOGRAM_BUCKETS = 185;

/** A histogram: index 0 is bucket 1. */
export type Histogram = number[];

export function emptyHistogram(): Histogram {
  return new Array<number>(HISTOGRAM_BUCKETS).fill(0);
}

/**
 * Adds a stored histogram into `target`. The database stores one over the span of buckets it has counted in and
 * reads it as `<first bucket>:<counts>` (`49:1,0,3`; conversations-store.ts), null when empty; counts are never
 * negative. A summary adds hundreds of them: the text is read in place, allocating nothing.
 */
export function addHistogram(target: Histogram, text: string | null): void {
  if (text === null || text === '') return;
  let i = 0;
  let first = 0;
  for (; i < text.length && text.charCodeAt(i) !== 58; i += 1) first = first * 10 + (text.charCodeAt(i) - 48);
  let index = first - 1;
  let value = 0;
  for (i += 1; i < text.length; i += 1) {
    const code = text.charCodeAt(i);
    if (code === 44) {
      if (index >= 0 && index < HISTOGRAM_BUCKETS) target[index] = (target[index] ?? 0) + value;
      index += 1;
      value = 0;
    } else {
      value = value * 10 + (code - 48);
    }
  }
  if (index >= 0 && index < HISTOGRAM_BUCKETS) target[index] = (target[index] ?? 0) + value;
}

/** Counts `count` values of bucket `bucket` (1-based, as conversation_bucket returns it; null: none). */
export function countBucket(target: Histogram, bucket: number | null, count = 1): void {
  if (bucket === null || bucket < 1 || bucket > HISTOGRAM_BUCKETS) return;
  target[bucket - 1] = (target[bucket - 1] ?? 0) + count;
}

/** The seconds bucket `index` (0-based) covers: [low, high). */
function bounds(index: number): [number, number] {
  if (index === 0) return [0, 0.5];
  return [0.5 * 2 ** ((index - 1) / 8), 0.5 * 2 ** (index / 8)];
}

/**
 * The q-quantile (0 ≤ q ≤ 1) as percentile_cont computes it on the values, each value taken as spread evenly over its
 * bucket: within 4.5 % of the exact figure (half a bucket), null for an empty histogram.
 */
export function histogramPercentile(histogram: readonly number[], q: number): number | null {
  const total = histogram.reduce((sum, n) => sum + n, 0);
  if (total === 0) return null;
  const rank = q * (total - 1);
  const below = Math.floor(rank);
  const lower = valueAt(histogram, below);
  const upper = below + 1 < total ? valueAt(histogram, below + 1) : lower;
  return lower + (upper - lower) * (rank - below);
}

/** The `rank`-th (0-based) value in order, in its bucket's place. */
function valueAt(histogram: readonly number[], rank: number): number {
  let seen = 0;
  for (let i = 0; i < histogram.length; i += 1) {
    const n = histogram[i] ?? 0;
    if (rank < seen + n) {
      const [low, high] = bounds(i);
      return low + ((high - low) * (rank - seen + 0.5)) / n;
    }
    seen += n;
  }
  return bounds(histogram.length - 1)[1];
}
