-- A token bucket on one key (so it fits any Redis Cluster slot): refill by elapsed time, take one.
-- Returns {1, 0} when admitted, {0, ms until a token is back} when not. ARGV: capacity, tokens/s.
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local cap, rate = tonumber(ARGV[1]), tonumber(ARGV[2])
local b = redis.call('HMGET', KEYS[1], 'tokens', 'at')
local tokens, at = tonumber(b[1]) or cap, tonumber(b[2]) or now
tokens = math.min(cap, tokens + math.max(0, now - at) * rate / 1000)
local ok, wait = 0, 0
if tokens >= 1 then tokens = tokens - 1; ok = 1 else wait = math.ceil((1 - tokens) * 1000 / rate) end
redis.call('HSET', KEYS[1], 'tokens', tostring(tokens), 'at', now)
redis.call('PEXPIRE', KEYS[1], math.ceil(cap * 1000 / rate) + 1000)
return {ok, wait}
