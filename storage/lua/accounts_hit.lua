-- INCR and start the window on the first hit only, atomically (STYLE P4).
-- KEYS: the counter. ARGV: window seconds. Returns {count, ttl}.
local n = redis.call('INCR', KEYS[1])
if n == 1 then redis.call('EXPIRE', KEYS[1], ARGV[1]) end
return {n, redis.call('TTL', KEYS[1])}
