/**
 * The ids a replica has taken from a run-outcome log: `<replica>.<n>` ids cost a number per writer once read in order,
 * out-of-order ones are kept until their gap fills, and any other id is kept as it is.
 */
import { describe, expect, it } from "vitest";
import { CountedIds, OutcomeIds } from "../../src/runs/counted-ids.js";

const W1 = "0f0e0d0c-0b0a-4908-8706-050403020100";
const W2 = "aaaaaaaa-bbbb-4ccc-8ddd-eeeeeeeeeeee";

describe("OutcomeIds", () => {
  it("numbers a writer's ids from 0 under one random replica id, and knows its own", () => {
    const a = new OutcomeIds();
    const b = new OutcomeIds();
    expect(a.replica).not.toBe(b.replica);
    expect([a.next(), a.next(), a.next()]).toEqual([`${a.replica}.0`, `${a.replica}.1`, `${a.replica}.2`]);
    expect(a.owns(`${a.replica}.7`)).toBe(true);
    expect(a.owns(`${b.replica}.0`)).toBe(false);
    expect(a.owns(a.replica)).toBe(false);
  });
});

describe("CountedIds", () => {
  it("keeps one number per writer for ids read in order, repeats included", () => {
    const ids = new CountedIds();
    for (let n = 0; n < 5000; n++) ids.add(`${W1}.${n}`);
    for (let n = 0; n < 500; n++) ids.add(`${W1}.${n}`); // a retried append read again
    for (let n = 0; n < 3000; n++) ids.add(`${W2}.${n}`);
    expect(ids.kept).toBe(2);
    expect(ids.has(`${W1}.4999`)).toBe(true);
    expect(ids.has(`${W1}.5000`)).toBe(false);
    expect(ids.has(`${W2}.0`)).toBe(true);
    expect(ids.has(`${W2}.3000`)).toBe(false);
  });

  it("keeps ids read out of order one by one until the gap fills", () => {
    const ids = new CountedIds();
    for (const n of [0, 3, 4, 2]) ids.add(`${W1}.${n}`);
    expect([0, 1, 2, 3, 4, 5].map((n) => ids.has(`${W1}.${n}`))).toEqual([true, false, true, true, true, false]);
    expect(ids.kept).toBe(4); // the writer's count, and 2, 3, 4 above it
    ids.add(`${W1}.1`);
    expect(ids.kept).toBe(1);
    expect(ids.has(`${W1}.4`)).toBe(true);
  });

  it("keeps ids of another shape as they are: a random id, a number spelt with a leading zero, a long number", () => {
    const ids = new CountedIds();
    const others = ["x1", `${W1}.01`, `${W1}.1234567890123456`, `${W1.toUpperCase()}.0`, `${W1}.-1`, `${W1}.1.0`];
    for (const id of others) ids.add(id);
    for (const id of others) expect(ids.has(id)).toBe(true);
    expect(ids.has(`${W1}.1`)).toBe(false); // "01" is another id than "1"
    expect(ids.has(`${W1}.0`)).toBe(false);
    expect(ids.kept).toBe(others.length);
  });
});
