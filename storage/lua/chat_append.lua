-- Store a message (storage.redis_chat.store_message).
-- KEYS seq, msgs, log, pending, images (ZSET picture id -> position), then one key per picture
-- ARGV: map header, the message's fields but id and position (msgpack map body), pending 1/0,
-- the greeting's blob or '', the pictures' TTL (s), the most pictures the chat keeps, the key
-- prefix of a picture (its id follows), then per picture its id and its bytes.
-- The id and position come from the INCR. Storing pictures beyond the chat's bound deletes the
-- oldest ones (their keys share the chat's hash tag: the same slot as every key above).
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
local pictures = #KEYS - 5
if pictures > 0 then
  local ttl = tonumber(ARGV[5])
  for i = 1, pictures do
    redis.call('SET', KEYS[5 + i], ARGV[7 + 2 * i], 'EX', ttl)
    redis.call('ZADD', KEYS[5], seq, ARGV[6 + 2 * i])
  end
  redis.call('EXPIRE', KEYS[5], ttl)
  local over = redis.call('ZCARD', KEYS[5]) - tonumber(ARGV[6])
  if over > 0 then
    local old = redis.call('ZRANGE', KEYS[5], 0, over - 1)
    for _, gone in ipairs(old) do redis.call('DEL', ARGV[7] .. gone) end
    redis.call('ZREM', KEYS[5], unpack(old))
  end
end
return seq
