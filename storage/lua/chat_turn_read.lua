-- A turn's read of its chat (storage.redis_chat.turn_inputs), taking the chat's lock on the way.
-- KEYS pending, log, msgs, lorebooks, lore_state, summary, summary_v, lock, settings
-- ARGV upto, limit, pending 1/0, lease token ('' = the caller holds the lock or needs none), TTL ms
-- Returns {false} (nothing pending: the lock is not taken), {'busy'} (another holder has the lock:
-- nothing read), else {answered, messages, count, attached books, lore state, summary, summary version,
-- chat settings}.
local upto, answered = ARGV[1], false
if ARGV[3] == '1' then
  local first = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', upto, 'WITHSCORES', 'LIMIT', 0, 1)
  if #first == 0 then return {false} end
  answered = redis.call('HGET', KEYS[3], first[1])
  upto = first[2]
end
if ARGV[4] ~= '' and not redis.call('SET', KEYS[8], ARGV[4], 'NX', 'PX', ARGV[5]) then
  return {'busy'}
end
local ids = redis.call('ZREVRANGEBYSCORE', KEYS[2], upto, '-inf', 'LIMIT', 0, tonumber(ARGV[2]))
local msgs = #ids > 0 and redis.call('HMGET', KEYS[3], unpack(ids)) or {}
return {answered, msgs, redis.call('ZCOUNT', KEYS[2], '-inf', upto), redis.call('GET', KEYS[4]),
  redis.call('GET', KEYS[5]), redis.call('GET', KEYS[6]), redis.call('GET', KEYS[7]), redis.call('GET', KEYS[9])}
