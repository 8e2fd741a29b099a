/**
 * The Lua scripts `RedisStore` runs (each atomic on the server) and the key layout of one prefix. Every key of a
 * prefix carries the same hash tag `{prefix}`, so a Redis Cluster keeps them in one slot (the scripts need that).
 */
import { createHash } from "node:crypto";
import type { Redis } from "ioredis";

/** The keys of one store prefix. */
export function storeKeys(prefix: string) {
  const p = `{${prefix}}`;
  return {
    /** Stream of events; entry id `0-<seq>`, field `e` = the event's JSON. */
    events: `${p}:events`,
    /** Set of every stored event id (the idempotency check; kept after compaction). */
    ids: `${p}:ids`,
    /** Last sequence number. */
    seq: `${p}:seq`,
    /** Snapshot state JSON and the sequence number it covers. */
    snapshot: `${p}:snapshot`,
    snapshotSeq: `${p}:snapshot-seq`,
    decision: (id: string) => `${p}:decision:${id}`,
    run: (runId: string) => `${p}:run:${runId}`,
    spend: (runId: string) => `${p}:spend:${runId}`,
  };
}

/**
 * KEYS: ids, seq, events, snapshotSeq. ARGV: id1, json1, id2, json2, ... Stores each event whose id is new (in
 * order), giving it the next sequence number. Returns { appended, seq, snapshotSeq, duplicateIds }.
 */
export const APPEND = `
local dup = {}
local n = 0
for i = 1, #ARGV, 2 do
  if redis.call('SADD', KEYS[1], ARGV[i]) == 1 then
    local s = redis.call('INCR', KEYS[2])
    redis.call('XADD', KEYS[3], '0-' .. s, 'e', ARGV[i + 1])
    n = n + 1
  else
    dup[#dup + 1] = ARGV[i]
  end
end
return { n, tonumber(redis.call('GET', KEYS[2]) or '0'), tonumber(redis.call('GET', KEYS[4]) or '0'), dup }`;

/**
 * KEYS: snapshot, snapshotSeq, seq, events. ARGV: seq, state JSON. Writes the snapshot when seq lies in
 * [last snapshot, last event] and trims the stream to the events after the previous snapshot (followers that lag
 * keep a whole snapshot interval to catch up). Returns { written (1/0), previous snapshot seq, last seq }.
 */
export const SNAPSHOT = `
local cur = tonumber(redis.call('GET', KEYS[2]) or '0')
local last = tonumber(redis.call('GET', KEYS[3]) or '0')
local s = tonumber(ARGV[1])
if s < cur or s > last then return { 0, cur, last } end
redis.call('SET', KEYS[1], ARGV[2])
redis.call('SET', KEYS[2], s)
if cur > 0 then redis.call('XTRIM', KEYS[4], 'MINID', '0-' .. (cur + 1)) end
return { 1, cur, last }`;

/** KEYS: snapshot, snapshotSeq, seq, events. Returns { snapshot JSON or false, snapshot seq, last seq, entries }. */
export const LOAD = `
local sseq = tonumber(redis.call('GET', KEYS[2]) or '0')
local snap = redis.call('GET', KEYS[1])
local last = tonumber(redis.call('GET', KEYS[3]) or '0')
return { snap, sseq, last, redis.call('XRANGE', KEYS[4], '0-' .. (sseq + 1), '+') }`;

/**
 * KEYS: spend. ARGV: seen, usd, ttl seconds. Adds usd when the spend is still `seen` (to 1e-9 USD). Returns
 * { ok (1/0), spend as a string }.
 */
export const RESERVE = `
local cur = tonumber(redis.call('GET', KEYS[1]) or '0')
if math.abs(cur - tonumber(ARGV[1])) > 1e-9 then return { 0, tostring(cur) } end
local v = redis.call('INCRBYFLOAT', KEYS[1], ARGV[2])
redis.call('EXPIRE', KEYS[1], ARGV[3])
return { 1, v }`;

const shas = new Map<string, string>();

/** Runs a script by its SHA1, loading it on a NOSCRIPT reply (after a restart, or on a new server). */
export async function runScript(
  client: Redis,
  script: string,
  keys: readonly string[],
  args: readonly (string | number)[],
): Promise<unknown> {
  let sha = shas.get(script);
  if (!sha) shas.set(script, (sha = createHash("sha1").update(script).digest("hex")));
  try {
    return await client.evalsha(sha, keys.length, ...keys, ...args);
  } catch (error) {
    if (!String((error as Error)?.message).startsWith("NOSCRIPT")) throw error;
    return client.eval(script, keys.length, ...keys, ...args);
  }
}
