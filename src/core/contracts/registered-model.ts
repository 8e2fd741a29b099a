/**
 * A model id a user named (a call's pin, the shadow model) checked against the router's registered ids: a
 * ValidationError at the field the user set, with the closest registered id and the list of them.
 */
import { ValidationError } from "../../errors.js";
import { closestMatch } from "../../util/edit-distance.js";

/**
 * Throws a ValidationError (path `field`) unless `id` is one of `registered`. `field` names the option as the user
 * wrote it (e.g. `call.serve`, `providerOptions["irt-router"].model`); `context` prefixes the message (e.g.
 * `route(call): `).
 */
export function checkRegistered(id: string, registered: readonly string[], field: string, context = ""): void {
  if (registered.includes(id)) return;
  const near = closestMatch(id, registered);
  throw new ValidationError(
    `${context}${field} "${id}" is not a registered model (one of: ${registered.join(", ")})` +
      `${near !== undefined ? `; did you mean "${near}"?` : "."}`,
    { path: field, details: { model: id, registered: [...registered] } },
  );
}
