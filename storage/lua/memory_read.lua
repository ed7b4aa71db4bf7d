-- Read one memory list (storage.redis_memory, snapshot): its versions, records, decay counters
-- and, when the caller's vector version is stale for ARGV[1]'s model, its vectors.
-- KEYS: meta, ids, recs, ctr, vecs. ARGV: model ('' for none), the caller's vector version, the
-- base tag and counter revision of the copy the caller holds ('' for none). The base tag names
-- the list's generation and its record and vector revisions (every write bumps rev, every
-- vector change vrev, every counter change crev). Reply: mode, rev, vrev, model, base, crev,
-- ids, recs, ctr, vecs; mode 0: the caller's copy stands (nothing else sent), 1: only the
-- counters changed (ctr sent), 2: the whole list, 3: the whole list with its vectors.
local meta = redis.call('HMGET', KEYS[1], 'rev', 'vrev', 'model', 'crev', 'gen')
local rev, vrev, model, crev = meta[1] or '0', meta[2] or '0', meta[3] or '', meta[4] or '0'
local base = meta[5] and (meta[5] .. ':' .. rev .. ':' .. vrev) or ''
local full = ARGV[1] ~= '' and ARGV[1] == model and ARGV[2] ~= vrev
if base ~= '' and base == ARGV[3] and not full then
  if crev == ARGV[4] then return {0, rev, vrev, model, base, crev, {}, {}, {}, {}} end
  return {1, rev, vrev, model, base, crev, {}, {}, redis.call('HGETALL', KEYS[4]), {}}
end
local ids = redis.call('ZRANGE', KEYS[2], 0, -1)
local recs = redis.call('HGETALL', KEYS[3])
local ctr = redis.call('HGETALL', KEYS[4])
local vecs = full and redis.call('HGETALL', KEYS[5]) or redis.call('HKEYS', KEYS[5])
return {full and 3 or 2, rev, vrev, model, base, crev, ids, recs, ctr, vecs}
