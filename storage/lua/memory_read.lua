-- Read one memory list whole (storage.redis_memory, snapshot): its versions, records, decay
-- counters and, when the caller's vector version is stale for ARGV[1]'s model, its vectors.
-- KEYS: meta, ids, recs, ctr, vecs. ARGV: model ('' for none), the caller's vector version.
local meta = redis.call('HMGET', KEYS[1], 'rev', 'vrev', 'model')
local ids = redis.call('ZRANGE', KEYS[2], 0, -1)
local recs = redis.call('HGETALL', KEYS[3])
local ctr = redis.call('HGETALL', KEYS[4])
local vrev, model = meta[2] or '0', meta[3] or ''
local full = ARGV[1] ~= '' and ARGV[1] == model and ARGV[2] ~= vrev
local vecs = full and redis.call('HGETALL', KEYS[5]) or redis.call('HKEYS', KEYS[5])
return {meta[1] or '0', vrev, model, ids, recs, ctr, vecs, full and 1 or 0}
