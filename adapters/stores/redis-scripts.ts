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
    /**
     * Sorted set of the latest stored event ids (member the id, score its sequence number), at most the store's
     * `dedupeWindow`: the duplicate check, trimmed to the window by every append.
     */
    recentIds: `${p}:recent-ids`,
    /**
     * Set of every event id, as irt-router before the window kept it: never written any more; when a store of that
     * version has one, it is still checked (read-only, so it does not grow).
     */
    legacyIds: `${p}:ids`,
    /**
     * The store's generation: a random id written once when the store is first used. A store wiped (Redis restarted
     * without persistence, FLUSHALL) lacks it, which every append checks.
     */
    generation: `${p}:generation`,
    /** Last sequence number. */
    seq: `${p}:seq`,
    /** Snapshot state JSON and the sequence number it covers. */
    snapshot: `${p}:snapshot`,
    snapshotSeq: `${p}:snapshot-seq`,
    /** Sorted set of a source's budget charges in the window: member `<weight>|<token>`, score the time (ms). */
    budget: (source: string) => `${p}:budget:${source}`,
    decision: (id: string) => `${p}:decision:${id}`,
    run: (runId: string) => `${p}:run:${runId}`,
    spend: (runId: string) => `${p}:spend:${runId}`,
  };
}

/** KEYS: generation. ARGV: a new generation id. Writes it when the store has none; returns the store's generation. */
export const INIT = `
redis.call('SET', KEYS[1], ARGV[1], 'NX')
return redis.call('GET', KEYS[1])`;

/**
 * KEYS: recentIds, seq, events, snapshotSeq, generation, legacyIds. ARGV: generation, window, id1, json1, id2, json2,
 * ... When the store's generation is the caller's, stores each event whose id is not among the latest `window` (nor in
 * a legacy id set) in order, giving it the next sequence number, then trims the recent ids to the window; returns
 * { appended, seq, snapshotSeq, duplicateIds, flags } (flags: one "1" per event stored, "0" per duplicate, in order, so
 * a batch of several callers' events is split back per caller); otherwise (the store was wiped or republished) stores
 * nothing and returns { -1, the store's generation or false }.
 */
export const APPEND = `
local gen = redis.call('GET', KEYS[5])
if gen ~= ARGV[1] then return { -1, gen } end
local legacy = redis.call('EXISTS', KEYS[6]) == 1
local dup = {}
local flags = {}
local n = 0
for i = 3, #ARGV, 2 do
  local id = ARGV[i]
  if redis.call('ZSCORE', KEYS[1], id) == false and not (legacy and redis.call('SISMEMBER', KEYS[6], id) == 1) then
    local s = redis.call('INCR', KEYS[2])
    redis.call('ZADD', KEYS[1], s, id)
    redis.call('XADD', KEYS[3], '0-' .. s, 'e', ARGV[i + 1])
    n = n + 1
    flags[#flags + 1] = '1'
  else
    dup[#dup + 1] = id
    flags[#flags + 1] = '0'
  end
end
local excess = redis.call('ZCARD', KEYS[1]) - tonumber(ARGV[2])
if excess > 0 then redis.call('ZREMRANGEBYRANK', KEYS[1], 0, excess - 1) end
return { n, tonumber(redis.call('GET', KEYS[2]) or '0'), tonumber(redis.call('GET', KEYS[4]) or '0'), dup, table.concat(flags) }`;

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

/**
 * KEYS: generation, seq, snapshot, snapshotSeq, events, recentIds, legacyIds. ARGV: the generation the caller knew, a new generation,
 * seq, state JSON. After a wipe: when the store holds nothing of a later generation (no generation, or one with no
 * event and no snapshot), writes the caller's state as the snapshot at seq, with the new generation, so learning goes
 * on from it. Returns { 1, new generation } when written, else { 0, the store's generation } (another process
 * republished first: reload from it).
 */
export const REPUBLISH = `
local gen = redis.call('GET', KEYS[1])
local seq = tonumber(redis.call('GET', KEYS[2]) or '0') or 0
if gen ~= false and gen ~= ARGV[1] and (seq > 0 or redis.call('EXISTS', KEYS[3]) == 1) then return { 0, gen } end
redis.call('DEL', KEYS[5], KEYS[6], KEYS[7])
redis.call('SET', KEYS[2], ARGV[3])
redis.call('SET', KEYS[4], ARGV[3])
redis.call('SET', KEYS[3], ARGV[4])
redis.call('SET', KEYS[1], ARGV[2])
return { 1, ARGV[2] }`;

/** Stream entries one read returns at most: `load()` reads the stream in pages, never in one giant reply. */
export const LOAD_PAGE = 1000;

/**
 * KEYS: snapshot, snapshotSeq, seq, events. ARGV: page size. Returns { snapshot JSON or false, snapshot seq, last seq,
 * the first page of entries after the snapshot }; the rest is read with XRANGE ... COUNT (see RedisStore.load).
 */
export const LOAD = `
local sseq = tonumber(redis.call('GET', KEYS[2]) or '0')
local snap = redis.call('GET', KEYS[1])
local last = tonumber(redis.call('GET', KEYS[3]) or '0')
return { snap, sseq, last, redis.call('XRANGE', KEYS[4], '0-' .. (sseq + 1), '+', 'COUNT', ARGV[1]) }`;

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

/**
 * KEYS: budget. ARGV: now (ms), windowMs, limit, weight, member. Drops the charges that left the window, and adds
 * `member` (`<weight>|<token>`) at `now` when the charges left plus weight stay within limit: the check and the charge
 * are one atomic step, whatever the number of processes. Returns { ok (1/0), used, retry after ms } (as strings).
 */
export const BUDGET_RESERVE = `
local now = tonumber(ARGV[1])
local win = tonumber(ARGV[2])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - win)
local all = redis.call('ZRANGE', KEYS[1], 0, -1, 'WITHSCORES')
local used = 0
local oldest = nil
for i = 1, #all, 2 do
  used = used + (tonumber(string.match(all[i], '^[^|]+')) or 0)
  if oldest == nil then oldest = tonumber(all[i + 1]) end
end
local w = tonumber(ARGV[4])
if used + w > tonumber(ARGV[3]) + 1e-9 then
  local retry = win
  if oldest then retry = math.max(0, oldest + win - now) end
  return { 0, tostring(used), tostring(retry) }
end
redis.call('ZADD', KEYS[1], now, ARGV[5])
redis.call('PEXPIRE', KEYS[1], math.ceil(win))
return { 1, tostring(used + w), '0' }`;

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
