-- Renew a lease (storage.lease): KEYS[1] the lease; ARGV token, TTL in ms. 0 when it is not ours.
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return 0
