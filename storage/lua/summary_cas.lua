-- Compare-and-set a chat's summary state: refused (0) when the version moved on or, with a
-- fence token, when the summary lease is held by someone else.
-- KEYS: summary, summary_v, summary_lock. ARGV: expected version, state blob, fence ('' none).
if ARGV[3] ~= '' and redis.call('GET', KEYS[3]) ~= ARGV[3] then return 0 end
if (redis.call('GET', KEYS[2]) or '0') ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[1], ARGV[2])
redis.call('SET', KEYS[2], tostring(tonumber(ARGV[1]) + 1))
return 1
