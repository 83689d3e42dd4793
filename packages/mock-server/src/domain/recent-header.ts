// The last Authorization header an index of tokens found, and what it found, until the index changes:
// load tests send one header over and over, and comparing it costs a fraction of digesting its token
// for the lookup. The tenants' directory and each tenant's token index keep one each.

export class RecentHeader<T> {
  private recent: { header: string; found: T } | undefined;

  /** What `header` found last, when nothing changed in the index since. */
  get(header: string | undefined): T | undefined {
    const recent = this.recent;
    return recent && header === recent.header ? recent.found : undefined;
  }

  remember(header: string, found: T): void {
    this.recent = { header, found };
  }

  /** The index changed: what it found before may be gone. */
  forget(): void {
    this.recent = undefined;
  }
}
