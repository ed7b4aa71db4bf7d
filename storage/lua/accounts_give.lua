-- Give a token back to a bucket of accounts_take (never above its capacity). ARGV: capacity.
local cap = tonumber(ARGV[1])
local tokens = tonumber(redis.call('HGET', KEYS[1], 'tokens'))
if tokens then redis.call('HSET', KEYS[1], 'tokens', tostring(math.min(cap, tokens + 1))) end
return 0
