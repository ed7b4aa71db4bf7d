-- Finish a turn (storage.redis_chat.finish): the lease check, every write and the release, at once.
-- KEYS turns, request log, pending, msgs, log, answers, latest, lore_state, lock
-- ARGV 1 lease token ('' = unfenced), 2 turn id, 3 turn blob, 4 request log blob, 5 its TTL (s),
--      6 reply id ('' = no reply), 7 reply blob, 8 reply position, 9 lore state blob ('' = keep),
--      10 superseded turn id ('' = none), 11 its blob, 12 its reply message ('' = none),
--      13.. the answered message ids
-- Returns 0 when the lock is not the caller's (nothing is written), else 1 (and the lock is free).
local token = ARGV[1]
if token ~= '' and redis.call('GET', KEYS[9]) ~= token then return 0 end
redis.call('HSET', KEYS[1], ARGV[2], ARGV[3])
redis.call('SET', KEYS[2], ARGV[4], 'EX', ARGV[5])
local answers = {}
for i = 13, #ARGV do answers[#answers + 1] = ARGV[i] end
if #answers > 0 then redis.call('ZREM', KEYS[3], unpack(answers)) end
if ARGV[6] ~= '' then
  redis.call('HSET', KEYS[4], ARGV[6], ARGV[7])
  redis.call('ZADD', KEYS[5], ARGV[8], ARGV[6])
  for _, id in ipairs(answers) do redis.call('HSET', KEYS[6], id, ARGV[2]) end
  redis.call('SET', KEYS[7], ARGV[2])
end
if ARGV[9] ~= '' then redis.call('SET', KEYS[8], ARGV[9]) end
if ARGV[10] ~= '' then
  redis.call('HSET', KEYS[1], ARGV[10], ARGV[11])
  if ARGV[12] ~= '' then redis.call('ZREM', KEYS[5], ARGV[12]) end
end
if token ~= '' then redis.call('DEL', KEYS[9]) end
return 1
