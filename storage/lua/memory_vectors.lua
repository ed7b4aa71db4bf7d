-- Store a list's vectors of one embedder, each only while its memory keeps the text it was
-- computed from. KEYS: meta, ctr, vecs. ARGV: model, row count, then 3 per row: id, text hash, bytes.
local vrev, changed, stored = tonumber(redis.call('HGET', KEYS[1], 'vrev') or '0'), false, {}
if redis.call('HGET', KEYS[1], 'model') ~= ARGV[1] then
  redis.call('DEL', KEYS[3])
  redis.call('HSET', KEYS[1], 'model', ARGV[1])
  changed = true
end
for i = 0, tonumber(ARGV[2]) - 1 do
  local b = 3 + i * 3
  if redis.call('HGET', KEYS[2], 'h:' .. ARGV[b]) == ARGV[b + 1] then
    redis.call('HSET', KEYS[3], ARGV[b], ARGV[b + 2])
    stored[#stored + 1] = ARGV[b]
  end
end
if changed or #stored > 0 then vrev = redis.call('HINCRBY', KEYS[1], 'vrev', 1) end
return {vrev, stored}
