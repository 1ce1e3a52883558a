/**
 * A bounded memo of a pure function's results, oldest entries dropped first.
 * Used where records render the same values on every request (zone
 * abbreviations and offsets, which cost several Intl calls each; WordPress
 * text filters).
 */
export class BoundedMemo<V> {
  private readonly values = new Map<string, V>();

  constructor(private readonly maxEntries: number) {}

  get(key: string, make: () => V): V {
    if (this.values.has(key)) return this.values.get(key) as V;
    const value = make();
    if (this.values.size >= this.maxEntries) {
      const oldest = this.values.keys().next().value;
      if (oldest !== undefined) this.values.delete(oldest);
    }
    this.values.set(key, value);
    return value;
  }
}
