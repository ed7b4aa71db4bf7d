-- Store a message (storage.redis_chat.store_message).
-- KEYS seq, msgs, log, pending; ARGV: map header, the message's fields but id and position
-- (msgpack map body), pending 1/0, the greeting's blob or ''. The id and position come from the INCR.
local seq = redis.call('INCR', KEYS[1])
local id = 'm' .. seq
local blob = ARGV[1] .. string.char(0xa2) .. 'id' .. string.char(0xa0 + #id) .. id
  .. string.char(0xa8) .. 'position' .. string.char(0xcb) .. struct.pack('>d', seq) .. ARGV[2]
if seq == 1 and ARGV[4] ~= '' then
  redis.call('HSETNX', KEYS[2], 'm0', ARGV[4])
  redis.call('ZADD', KEYS[3], 'NX', 0, 'm0')
end
redis.call('HSET', KEYS[2], id, blob)
redis.call('ZADD', KEYS[3], seq, id)
if ARGV[3] == '1' then redis.call('ZADD', KEYS[4], seq, id) end
return seq
