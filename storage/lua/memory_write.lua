-- Apply one memory list's journal entries all or nothing (storage.redis_memory, apply_writes):
-- check the expected revision and every entry first, then mutate.
-- KEYS: meta, ids, recs, ctr, vecs. ARGV: expected rev ('' unchecked), entry count, then 7 per
-- entry: kind (S save, U update, D delete, F forget), id, blob, unused days, last counted day,
-- last matched, text hash.
local rev = tonumber(redis.call('HGET', KEYS[1], 'rev') or '0')
local n, seen, vchanged = tonumber(ARGV[2]), {}, false
if ARGV[1] ~= '' and tonumber(ARGV[1]) ~= rev then return {0, 'memory_changed', '', rev} end
local function has(id)
  if seen[id] == nil then seen[id] = redis.call('HEXISTS', KEYS[3], id) == 1 end
  return seen[id]
end
local function decayed(id, b)
  local u = tonumber(redis.call('HGET', KEYS[4], 'u:' .. id) or '0')
  return u < tonumber(ARGV[b + 3]) or (redis.call('HGET', KEYS[4], 'm:' .. id) or '') ~= ARGV[b + 5]
end
for b = 3, 2 + n * 7, 7 do
  local kind, id, problem = ARGV[b], ARGV[b + 1], nil
  if kind == 'S' and has(id) then problem = 'memory_exists'
  elseif (kind == 'U' or kind == 'F') and not has(id) then problem = 'memory_missing'
  elseif kind == 'F' and decayed(id, b) then problem = 'memory_changed' end
  if problem then return {0, problem, id, rev} end
  if kind ~= 'U' then seen[id] = kind == 'S' end
end
local function drop_vector(id) if redis.call('HDEL', KEYS[5], id) == 1 then vchanged = true end end
for b = 3, 2 + n * 7, 7 do
  local kind, id = ARGV[b], ARGV[b + 1]
  if kind == 'S' or kind == 'U' then redis.call('HSET', KEYS[3], id, ARGV[b + 2]) end
  if kind == 'S' then
    redis.call('ZADD', KEYS[2], redis.call('HINCRBY', KEYS[1], 'seq', 1), id)
    redis.call('HSET', KEYS[4], 'u:' .. id, ARGV[b + 3], 'd:' .. id, ARGV[b + 4], 'm:' .. id, ARGV[b + 5],
      'h:' .. id, ARGV[b + 6])
    drop_vector(id)
  elseif kind == 'U' and redis.call('HGET', KEYS[4], 'h:' .. id) ~= ARGV[b + 6] then
    redis.call('HSET', KEYS[4], 'h:' .. id, ARGV[b + 6])
    drop_vector(id)
  elseif kind == 'D' or kind == 'F' then
    redis.call('HDEL', KEYS[3], id)
    redis.call('ZREM', KEYS[2], id)
    redis.call('HDEL', KEYS[4], 'u:' .. id, 'd:' .. id, 'm:' .. id, 'h:' .. id)
    drop_vector(id)
  end
end
rev = redis.call('HINCRBY', KEYS[1], 'rev', 1)
if not redis.call('HGET', KEYS[1], 'gen') then  -- names this incarnation of the list (read tags)
  local now = redis.call('TIME')
  redis.call('HSET', KEYS[1], 'gen', now[1] .. '.' .. now[2])
end
if vchanged then redis.call('HINCRBY', KEYS[1], 'vrev', 1) end
return {1, '', '', rev}
