// The Lua scripts of the Redis engine, run by node-redis (defineScript): by their digest (EVALSHA), and
// from their source once after a Redis restart forgot them (NOSCRIPT). Each runs atomically in Redis, so
// every emulator sharing the database sees a change whole or not at all, and a change and its
// announcement (SPUBLISH) go together.
//
// Every key a script touches, and the channel it announces on, share one hash tag (connection.ts
// RedisKeys): on a Redis Cluster each script runs on one shard, in one slot.
//
// A workspace's state runs each script in its `IfLive` form: the same script after a check of the
// workspace's liveness key (its last key, in the workspace's slot), which fails with GONE once the
// workspace is deleted, so that no write of an emulator that has not heard of the delete yet lands
// (connection.ts). The default tenant's state runs them as they are.
//
// A topic's messages are a stream whose entry ids are `<sequence>-0`: XRANGE reads from a sequence,
// XTRIM MINID drops a prefix. Its hash holds `retention` (ms), `first` (no message below it remains),
// `next` (the next sequence) and `last_time` (times never go backwards). Items of a resource type are
// a hash (id -> JSON of {parent, value}) and a sorted set of their ids by creation position.
import { type CommandParser, defineScript, type RedisArgument } from '@redis/client';

/** Reads the topic's hash, or fails with NOTOPIC; a prelude of the message scripts. */
const TOPIC = `
local topic = redis.call('HMGET', KEYS[1], 'retention', 'first', 'next', 'last_time')
if not topic[1] then return redis.error_reply('NOTOPIC the topic is not in the store') end
local retention, first, nxt, last_time = tonumber(topic[1]), tonumber(topic[2]), tonumber(topic[3]), tonumber(topic[4])
local function entry(sequence) return string.format('%d-0', sequence) end
`;

/** KEYS: topic, stream. ARGV: retention. A new topic (its id was never used) has no messages. */
const ADD_TOPIC = `
redis.call('DEL', KEYS[2])
redis.call('HSET', KEYS[1], 'retention', ARGV[1], 'first', 1, 'next', 1, 'last_time', 0)
`;

/** KEYS: topic. ARGV: retention. */
const SET_RETENTION = `
if redis.call('EXISTS', KEYS[1]) == 0 then return redis.error_reply('NOTOPIC the topic is not in the store') end
redis.call('HSET', KEYS[1], 'retention', ARGV[1])
`;

/**
 * KEYS: topic, stream, the topic's wake-up channel. ARGV: origin, then (time, payload) pairs. Stores the
 * payloads in order under consecutive sequences, each stamped with its time, or the last time when that
 * is later (times never go backwards), and announces them once (to the emulators whose consumers wait
 * on the topic: the others are not subscribed); returns the first sequence.
 */
const APPEND = `${TOPIC}
local sequence = nxt
for i = 2, #ARGV, 2 do
  last_time = math.max(tonumber(ARGV[i]), last_time)
  redis.call('XADD', KEYS[2], entry(sequence), 't', last_time, 'p', ARGV[i + 1])
  sequence = sequence + 1
end
redis.call('HSET', KEYS[1], 'next', sequence, 'last_time', last_time)
redis.call('SPUBLISH', KEYS[3], ARGV[1])
return nxt
`;

/**
 * KEYS: topic, stream. ARGV: now, mode (oldest | after | since), sequence or time, limit. Drops the
 * expired messages first (a message is retained while it is younger than the retention), then returns
 * up to limit + 1 entries (one more tells whether more follow); nil after a sequence not retained.
 */
const READ = `${TOPIC}
-- The first message at or after a sequence: its sequence and time.
local function at(sequence)
  local found = redis.call('XRANGE', KEYS[2], entry(sequence), '+', 'COUNT', 1)[1]
  if not found then return nil end
  return tonumber(string.match(found[1], '^%d+')), tonumber(found[2][2])
end
-- The first sequence whose message is at or after a time, by binary search (times never go backwards).
local function first_at_or_after(time)
  local low, high = first, nxt
  while low < high do
    local middle = math.floor((low + high) / 2)
    local sequence, found = at(middle)
    if sequence and found < time then low = sequence + 1 else high = middle end
  end
  return low
end
local cutoff = tonumber(ARGV[1]) - retention + 1
local _, oldest = at(first)
if oldest and oldest < cutoff then
  first = first_at_or_after(cutoff)
  redis.call('XTRIM', KEYS[2], 'MINID', entry(first))
  redis.call('HSET', KEYS[1], 'first', first)
end
local from = first
if ARGV[2] == 'after' then
  local sequence = tonumber(ARGV[3])
  if sequence < first or sequence >= nxt then return false end
  from = sequence + 1
elseif ARGV[2] == 'since' then
  from = first_at_or_after(tonumber(ARGV[3]))
end
return redis.call('XRANGE', KEYS[2], entry(from), '+', 'COUNT', tonumber(ARGV[4]) + 1)
`;

/** KEYS: topic, stream. Every message goes; their sequences stay used. */
const PURGE = `${TOPIC}
redis.call('DEL', KEYS[2])
redis.call('HSET', KEYS[1], 'first', nxt)
`;

/** KEYS: items, order, types, positions, channel. ARGV: type, id, JSON, announcement (optional). */
const PUT_ITEM = `
redis.call('HSET', KEYS[1], ARGV[2], ARGV[3])
if not redis.call('ZSCORE', KEYS[2], ARGV[2]) then redis.call('ZADD', KEYS[2], redis.call('INCR', KEYS[4]), ARGV[2]) end
redis.call('SADD', KEYS[3], ARGV[1])
if ARGV[4] then redis.call('SPUBLISH', KEYS[5], ARGV[4]) end
`;

/** KEYS: items, order, channel. ARGV: id, announcement (optional). */
const DELETE_ITEM = `
redis.call('HDEL', KEYS[1], ARGV[1])
redis.call('ZREM', KEYS[2], ARGV[1])
if ARGV[2] then redis.call('SPUBLISH', KEYS[3], ARGV[2]) end
`;

/** KEYS: items, order. Returns id, JSON, id, JSON, ... in creation order. */
const LIST_ITEMS = `
local out = {}
for _, id in ipairs(redis.call('ZRANGE', KEYS[2], 0, -1)) do
  out[#out + 1] = id
  out[#out + 1] = redis.call('HGET', KEYS[1], id)
end
return out
`;

/**
 * The key names of a type's items and order, in Lua; the prelude of the scripts that reach types by a
 * prefix of their names. These keys are not declared, but they share the declared keys' hash tag: on a
 * cluster they are in the script's slot.
 */
const TYPE_KEYS = `
local key_prefix = ARGV[1]
local function items_key(type) return key_prefix .. 'items:' .. type end
local function order_key(type) return key_prefix .. 'order:' .. type end
local function of_prefix(name) return string.sub(name, 1, #ARGV[2]) == ARGV[2] end
`;

/**
 * KEYS: types, counters. ARGV: the resource keys' prefix, type prefix. Returns { type, id, JSON, ... } of the types
 * of the prefix in creation order, and { type, last, ... } of their counters.
 */
const SNAPSHOT = `${TYPE_KEYS}
local items, counters = {}, {}
for _, type in ipairs(redis.call('SMEMBERS', KEYS[1])) do
  if of_prefix(type) then
    for _, id in ipairs(redis.call('ZRANGE', order_key(type), 0, -1)) do
      items[#items + 1] = type
      items[#items + 1] = id
      items[#items + 1] = redis.call('HGET', items_key(type), id)
    end
  end
end
local all = redis.call('HGETALL', KEYS[2])
for i = 1, #all, 2 do
  if of_prefix(all[i]) then
    counters[#counters + 1] = all[i]
    counters[#counters + 1] = all[i + 1]
  end
end
return { items, counters }
`;

/**
 * KEYS: types, counters, positions, channel. ARGV: the resource keys' prefix, type prefix, announcement (or ''), counter
 * count n, then n (type, last) pairs, then (type, id, JSON) triples. Replaces the types of the prefix.
 */
const RESTORE = `${TYPE_KEYS}
for _, type in ipairs(redis.call('SMEMBERS', KEYS[1])) do
  if of_prefix(type) then
    redis.call('DEL', items_key(type), order_key(type))
    redis.call('SREM', KEYS[1], type)
  end
end
local all = redis.call('HGETALL', KEYS[2])
for i = 1, #all, 2 do
  if of_prefix(all[i]) then redis.call('HDEL', KEYS[2], all[i]) end
end
local counters = tonumber(ARGV[4])
for i = 5, 4 + 2 * counters, 2 do redis.call('HSET', KEYS[2], ARGV[i], ARGV[i + 1]) end
for i = 5 + 2 * counters, #ARGV, 3 do
  local type = ARGV[i]
  redis.call('HSET', items_key(type), ARGV[i + 1], ARGV[i + 2])
  redis.call('ZADD', order_key(type), redis.call('INCR', KEYS[3]), ARGV[i + 1])
  redis.call('SADD', KEYS[1], type)
end
if ARGV[3] ~= '' then redis.call('SPUBLISH', KEYS[4], ARGV[3]) end
`;

/** KEYS: the start mark. ARGV: this emulator's origin. Removes the mark only while it is still this emulator's. */
const END_START = `
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
`;

/** The prelude of a workspace's scripts: its liveness key, passed last, is there, or GONE. */
const IF_LIVE = `if redis.call('EXISTS', KEYS[#KEYS]) == 0 then return redis.error_reply('GONE the workspace was deleted') end
`;

/** A script called with its keys and its arguments, as every call site here passes them. */
const script = (SCRIPT: string) =>
  defineScript({
    SCRIPT,
    parseCommand(parser: CommandParser, keys: string[], args: RedisArgument[]) {
      parser.pushKeysLength(keys);
      parser.push(...args);
    },
    transformReply: (reply: unknown) => reply,
  });

const SOURCES = {
  addTopic: ADD_TOPIC,
  setRetention: SET_RETENTION,
  append: APPEND,
  read: READ,
  purge: PURGE,
  putItem: PUT_ITEM,
  deleteItem: DELETE_ITEM,
  listItems: LIST_ITEMS,
  snapshot: SNAPSHOT,
  restore: RESTORE,
  endStart: END_START,
};

export type ScriptName = keyof typeof SOURCES;
/** A script's form for a workspace's state; `commandIfLive` runs one command (ARGV) once the check passes. */
export type LiveScriptName = `${ScriptName}IfLive` | 'commandIfLive';

export const ifLive = (name: ScriptName): LiveScriptName => `${name}IfLive`;

/** Given to node-redis when it connects (connection.ts), which then runs them by name. */
export const SCRIPTS = Object.fromEntries([
  ...Object.entries(SOURCES).flatMap(([name, source]) => [
    [name, script(source)],
    [ifLive(name as ScriptName), script(IF_LIVE + source)],
  ]),
  ['commandIfLive', script(`${IF_LIVE}return redis.call(unpack(ARGV))`)],
]) as Record<ScriptName | LiveScriptName, ReturnType<typeof script>>;
