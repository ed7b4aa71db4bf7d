-- One reply's decay counter changes for one memory list, at most one counted day per memory
-- per day (DEC-5). KEYS: recs, ctr, meta. ARGV: day ordinal, change count, then 4 per change:
-- kind (r reset, a advance), id, last counted day, last matched. A change of any counter bumps
-- the meta's crev (readers compare it to know their copy of the counters stands).
local day, n, advanced, reset, changed = tonumber(ARGV[1]), tonumber(ARGV[2]), {}, {}, false
for i = 0, n - 1 do
  local b = 3 + i * 4
  local kind, id = ARGV[b], ARGV[b + 1]
  if redis.call('HEXISTS', KEYS[1], id) == 1 then
    local stored = tonumber(redis.call('HGET', KEYS[2], 'd:' .. id) or '') or -1
    if kind == 'r' then
      local counted = math.max(stored, tonumber(ARGV[b + 2]) or -1)
      if redis.call('HGET', KEYS[2], 'u:' .. id) ~= '0' or counted ~= stored then changed = true end
      redis.call('HSET', KEYS[2], 'u:' .. id, 0, 'd:' .. id, counted >= 0 and counted or '')
      local m = tonumber(redis.call('HGET', KEYS[2], 'm:' .. id) or '') or -1
      local new = tonumber(ARGV[b + 3]) or -1
      if new > m then
        redis.call('HSET', KEYS[2], 'm:' .. id, ARGV[b + 3])
        changed = true
      end
      reset[#reset + 1] = id
    elseif stored < day then
      redis.call('HINCRBY', KEYS[2], 'u:' .. id, 1)
      redis.call('HSET', KEYS[2], 'd:' .. id, day)
      advanced[#advanced + 1] = id
      changed = true
    end
  end
end
if changed then redis.call('HINCRBY', KEYS[3], 'crev', 1) end
return {advanced, reset}
