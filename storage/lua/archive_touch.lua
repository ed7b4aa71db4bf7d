-- Record client activity: the latest time wins across processes (EPI-10).
-- KEYS: the activity key. ARGV: epoch ms.
local last = tonumber(redis.call('GET', KEYS[1]) or '0')
if tonumber(ARGV[1]) > last then redis.call('SET', KEYS[1], ARGV[1]) end
return 1
