import { expect } from "vitest";

type ErrorClass<E> = abstract new (...args: never[]) => E;

/** The error `fn` throws, asserted to be a `cls` (the test fails if it throws something else, or nothing). */
export function thrownBy<E>(cls: ErrorClass<E>, fn: () => unknown): E {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(cls);
    return error as E;
  }
  throw new Error(`expected a ${cls.name}, but nothing was thrown`);
}

/** The reason `promise` rejects with, asserted to be a `cls` (the test fails if it resolves). */
export async function rejectedWith<E>(cls: ErrorClass<E>, promise: Promise<unknown>): Promise<E> {
  let resolved = false;
  const reason = await promise.then(
    () => {
      resolved = true;
      return undefined;
    },
    (error: unknown) => error,
  );
  if (resolved) throw new Error(`expected a ${cls.name}, but the promise resolved`);
  expect(reason).toBeInstanceOf(cls);
  return reason as E;
}
