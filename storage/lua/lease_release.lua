-- Release a lease (storage.lease): KEYS[1] the lease; ARGV token. Deletes it only while it is ours.
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
