-- The archive sweep lease on the server's clock: 1 (and stamped) when ARGV[1] ms have passed
-- since the last pass, else 0. KEYS: the last-sweep key.
local now = redis.call('TIME')
local ms = tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000)
local last = tonumber(redis.call('GET', KEYS[1]) or '0')
if ms - last < tonumber(ARGV[1]) then return 0 end
redis.call('SET', KEYS[1], tostring(ms))
return 1
