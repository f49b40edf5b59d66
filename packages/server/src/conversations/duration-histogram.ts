// The duration histograms of the reports' daily rollup (migration 0029, conversation_days): 185 log-spaced buckets.
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
 * Adds a stored histogram, as `array_to_string(hist, ',')` reads it (counts are never negative), into `target`: a
 * summary adds hundreds of them, and reading the text in place allocates nothing.
 */
export function addHistogram(target: Histogram, text: string | null): void {
  if (text === null || text === '') return;
  let index = 0;
  let value = 0;
  for (let i = 0; i < text.length; i += 1) {
    const code = text.charCodeAt(i);
    if (code === 44) {
      target[index] = (target[index] ?? 0) + value;
      index += 1;
      value = 0;
    } else {
      value = value * 10 + (code - 48);
    }
  }
  target[index] = (target[index] ?? 0) + value;
}

/** Counts one value of bucket `bucket` (1-based, as conversation_bucket returns it; null: none). */
export function countBucket(target: Histogram, bucket: number | null): void {
  if (bucket === null || bucket < 1 || bucket > HISTOGRAM_BUCKETS) return;
  target[bucket - 1] = (target[bucket - 1] ?? 0) + 1;
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
