import { Type, type Static, type TSchema } from '@sinclair/typebox'

/**
 * `T` or null, written as `type: [T, "null"]` rather than `anyOf`: the response serializer then writes
 * the value directly instead of validating it against each branch, and the param parser reads it the same way.
 */
export function Nullable<T extends TSchema>(schema: T) {
  return Type.Unsafe<Static<T> | null>({ ...schema, type: [schema.type, 'null'] })
}
