// The Lua scripts of the Redis task store. Each runs atomically in Redis, so a check and the write it
// guards cannot be split by another process's command.
//
// A lease key holds `<fence>:<owner>`: the fencing token of the acquisition and who holds it. The fence
// key counts acquisitions (INCR), so each new holder's token is larger than every earlier one's, and a
// write fenced with an older token than the current count is refused (-1).

/** The task's record was fenced out: a newer lease holder exists. What the write scripts answer then. */
export const FENCED = -1;

/** The check every write script starts with: `fenceArg` is '' for an unfenced write. */
const fenceCheck = (fenceArg: string): string => `
if ${fenceArg} ~= '' and tonumber(redis.call('GET', KEYS[3]) or '0') > tonumber(${fenceArg}) then return ${FENCED} end`;

/**
 * How every write script ends: `json` '' deletes the record (and keeps the task's fence count for
 * `keepFenceMs`, so a former holder's late write cannot bring the record back), else sets it.
 */
const apply = (json: string, id: string, keepFenceMs: string): string => `
if ${json} == '' then
  redis.call('DEL', KEYS[1])
  redis.call('SREM', KEYS[2], ${id})
  if redis.call('EXISTS', KEYS[3]) == 1 then redis.call('PEXPIRE', KEYS[3], ${keepFenceMs}) end
else
  redis.call('SET', KEYS[1], ${json})
  redis.call('SADD', KEYS[2], ${id})
  redis.call('PERSIST', KEYS[3])
end
return 1`;

/**
 * KEYS: record, id set, fence. ARGV: expected present ('1'/'0'), expected JSON, new JSON ('' deletes),
 * id, fence ('' none), fence TTL after a delete (ms). Writes only if the record is still what the caller
 * read: a compare-and-set across both keys. 1 written, 0 lost the race, -1 fenced.
 */
export const COMPARE_AND_SET = `${fenceCheck('ARGV[5]')}
local current = redis.call('GET', KEYS[1])
if ARGV[1] == '1' then
  if current ~= ARGV[2] then return 0 end
elseif current then
  return 0
end${apply('ARGV[3]', 'ARGV[4]', 'ARGV[6]')}`;

/**
 * KEYS: record, id set, fence. ARGV: new JSON ('' deletes), id, fence ('' none), fence TTL after a
 * delete (ms). 1 written, -1 fenced.
 */
export const WRITE = `${fenceCheck('ARGV[3]')}${apply('ARGV[1]', 'ARGV[2]', 'ARGV[4]')}`;

/**
 * KEYS: lease, fence. ARGV: owner, ttl ms. Free (or held by this same owner, e.g. after a restart with a
 * stable owner name): taken with a new fencing token, which it returns. Held by another owner: 0.
 */
export const ACQUIRE = `
local holder = redis.call('GET', KEYS[1])
if holder then
  local sep = string.find(holder, ':', 1, true)
  if not sep or string.sub(holder, sep + 1) ~= ARGV[1] then return 0 end
end
local fence = redis.call('INCR', KEYS[2])
redis.call('SET', KEYS[1], fence .. ':' .. ARGV[1], 'PX', ARGV[2])
return fence`;

/** KEYS: lease. ARGV: `<fence>:<owner>`, ttl ms. Extends the lease only for the acquisition it names. */
export const RENEW = `
if redis.call('GET', KEYS[1]) == ARGV[1] then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  return 1
end
return 0`;

/** KEYS: lease. ARGV: `<fence>:<owner>`. Compare-and-delete: a former holder never deletes its successor's lease. */
export const RELEASE = `
if redis.call('GET', KEYS[1]) == ARGV[1] then
  redis.call('DEL', KEYS[1])
  return 1
end
return 0`;

/**
 * KEYS: the record of the layout before (`task:{id}`), its id set, the record at its key, the key set, the
 * fence before, the fence at the key. ARGV: the JSON read before, the id, the key. Moves a record filed by
 * its task id alone under its key (unless a record is there already), with its fence count (the larger
 * one), and removes the old one; JSON '' (no record: deleted meanwhile) drops the id from the old set.
 * 1 done, 0 the old record changed meanwhile (read it again).
 */
export const MIGRATE = `
local current = redis.call('GET', KEYS[1]) or ''
if current ~= ARGV[1] then return 0 end
if current == '' then
  redis.call('SREM', KEYS[2], ARGV[2])
  return 1
end
if redis.call('EXISTS', KEYS[3]) == 0 then
  redis.call('SET', KEYS[3], ARGV[1])
  redis.call('SADD', KEYS[4], ARGV[3])
end
local fence = tonumber(redis.call('GET', KEYS[5]) or '0')
if fence > tonumber(redis.call('GET', KEYS[6]) or '0') then redis.call('SET', KEYS[6], fence) end
redis.call('DEL', KEYS[1], KEYS[5])
redis.call('SREM', KEYS[2], ARGV[2])
return 1`;
