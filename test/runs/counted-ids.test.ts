/**
 * The ids a replica has taken from a run-outcome log: `<replica>.<n>` ids cost a number per writer once read in order,
 * out-of-order ones are kept until their gap fills, and any other id is kept as it is.
 */
import { describe, expect, it } from "vitest";
import { CountedIds, MAX_AHEAD, MAX_STATE_OTHERS, OutcomeIds } from "../../src/runs/counted-ids.js";

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

  it("keeps at most MAX_AHEAD numbers above a writer's count: past it the lower half and their gaps count as read", () => {
    const ids = new CountedIds();
    // a writer whose number 0 never reaches this log (dropped, folded away before its first sync, a wiped log)
    for (let n = 1; n <= MAX_AHEAD; n++) ids.add(`${W1}.${n}`);
    expect(ids.kept).toBe(MAX_AHEAD + 1);
    ids.add(`${W1}.${MAX_AHEAD + 1}`); // one more: the gap is closed, every number read so far is below the count
    expect(ids.kept).toBe(1);
    expect(ids.has(`${W1}.0`)).toBe(true); // come late, it is a repeat: never counted twice
    expect(ids.has(`${W1}.${MAX_AHEAD + 2}`)).toBe(false);
    // every other number missing: it stays bounded, the lower half let go each time
    for (let n = 0; n < 3 * MAX_AHEAD; n++) ids.add(`${W2}.${2 * n + 1}`);
    expect(ids.kept).toBeLessThanOrEqual(MAX_AHEAD + 2);
    expect(ids.has(`${W2}.${6 * MAX_AHEAD - 1}`)).toBe(true);
    expect(ids.has(`${W2}.${6 * MAX_AHEAD}`)).toBe(false);
  });

  it("saves what it holds and takes it back the same, with a writer's own count; bounds the ids of other shapes", () => {
    const ids = new CountedIds();
    for (const n of [0, 1, 2, 5, 7]) ids.add(`${W1}.${n}`);
    for (let k = 0; k < MAX_STATE_OTHERS + 5; k++) ids.add(`other-${k}`);
    const own = new OutcomeIds();
    own.next();
    own.next();
    const state = ids.state({ writer: own.replica, next: own.given });
    expect(state.writers).toEqual({ [W1]: { next: 3, ahead: [5, 7] }, [own.replica]: { next: 2 } });
    expect(state.others).toHaveLength(MAX_STATE_OTHERS);
    expect(state.others![0]).toBe("other-5"); // the most recent
    const back = CountedIds.from(JSON.parse(JSON.stringify(state)));
    expect([0, 2, 3, 4, 5, 6, 7, 8].map((n) => back.has(`${W1}.${n}`))).toEqual([
      true,
      true,
      false,
      false,
      true,
      false,
      true,
      false,
    ]);
    expect([back.has(`${own.replica}.1`), back.has(`${own.replica}.2`)]).toEqual([true, false]);
    expect([back.has("other-4"), back.has("other-5")]).toEqual([false, true]);
    // numbers at or below a saved count are no gap
    const odd = CountedIds.from({ writers: { [W2]: { next: 3, ahead: [1, 3, 4, 9] } } });
    expect(odd.state().writers).toEqual({ [W2]: { next: 5, ahead: [9] } });
  });
});
