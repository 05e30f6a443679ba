// The Standard Schema interface (https://standardschema.dev, v1), as a structural type: any validator that
// implements it (zod 4, Valibot, ArkType, Effect Schema …) is accepted without Tether depending on one.

/** One problem a validator found: its message and where (`path`) in the value. */
export interface SchemaIssue {
  readonly message: string;
  readonly path?: ReadonlyArray<PropertyKey | { readonly key: PropertyKey }> | undefined;
}

/** The result of a Standard Schema validation: the (possibly transformed) value, or the issues. */
export type SchemaResult<Output> = { readonly value: Output; readonly issues?: undefined } | { readonly issues: ReadonlyArray<SchemaIssue> };

/**
 * A validator that implements Standard Schema v1 (a `~standard` property with `validate`): a zod 4 schema
 * is one. `Output` is the type of a valid value after the validator's transforms.
 */
export interface StandardSchema<Input = unknown, Output = Input> {
  readonly '~standard': {
    readonly version: 1;
    readonly vendor: string;
    readonly validate: (value: unknown) => SchemaResult<Output> | Promise<SchemaResult<Output>>;
    readonly types?: { readonly input: Input; readonly output: Output } | undefined;
  };
}

/** The type a {@link StandardSchema} gives for a valid value. */
export type SchemaOutput<S extends StandardSchema> = NonNullable<S['~standard']['types']>['output'];
