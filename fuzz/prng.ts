/**
 * A small seeded PRNG (mulberry32) for the fuzzer. Each input gets its own
 * generator derived from (seed, index), so any single input can be replayed
 * without generating the ones before it.
 */

/** mulberry32: 32-bit state, good enough spread for test data, tiny and fast. */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Mixes the run seed and the input index into one 32-bit seed. */
function mix(seed: number, index: number): number {
  let h = Math.imul((seed >>> 0) ^ 0x9e3779b9, 0x85ebca6b);
  h ^= Math.imul((index >>> 0) + 0x632be5ab, 0xc2b2ae35);
  h ^= h >>> 16;
  h = Math.imul(h, 0x7feb352d);
  h ^= h >>> 15;
  return h >>> 0;
}

/** Random choices over one generator. */
export class Rng {
  readonly #next: () => number;

  constructor(seed: number) {
    this.#next = mulberry32(seed);
  }

  /** The generator of input `index` of a run seeded with `seed`. */
  static forInput(seed: number, index: number): Rng {
    return new Rng(mix(seed, index));
  }

  /** A float in [0, 1). */
  float(): number {
    return this.#next();
  }

  /** An integer in [0, n). */
  int(n: number): number {
    return Math.floor(this.#next() * n);
  }

  /** An integer in [min, max]. */
  range(min: number, max: number): number {
    return min + this.int(max - min + 1);
  }

  /** True with probability `p`. */
  chance(p: number): boolean {
    return this.#next() < p;
  }

  pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)];
  }

  /** One of `choices`, picked in proportion to its weight. */
  weighted<T>(choices: readonly (readonly [number, T])[]): T {
    const total = choices.reduce((sum, [w]) => sum + w, 0);
    let r = this.#next() * total;
    for (const [w, value] of choices) {
      r -= w;
      if (r < 0) return value;
    }
    return choices[choices.length - 1][1];
  }

  bytes(n: number): Uint8Array<ArrayBuffer> {
    const out = new Uint8Array(n);
    for (let i = 0; i < n; i++) out[i] = this.int(256);
    return out;
  }
}
