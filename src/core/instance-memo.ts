/** Values one running instance makes once and keeps while it runs (the OpenID signing key), instead of module state. */
export class InstanceMemo {
  private readonly values = new Map<string, Promise<unknown>>()

  /** The value under `key`, made by `make` on first need; a failed make is forgotten, so the next call tries again. */
  remember<T>(key: string, make: () => Promise<T>): Promise<T> {
    let value = this.values.get(key) as Promise<T> | undefined
    if (!value) {
      value = make()
      value.catch(() => this.values.delete(key))
      this.values.set(key, value)
    }
    return value
  }
}
