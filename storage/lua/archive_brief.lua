-- A turn's briefing pages in one round trip (EPI-1, EPI-13): the chat's pinned pages and open
-- working notes, named by its briefing set. Both keys carry the chat's hash tag (one slot).
-- KEYS: archive:brief (SET of page ids), archive:pages (HASH id -> page). Returns page payloads.
local ids = redis.call('SMEMBERS', KEYS[1])
if #ids == 0 then return {} end
local found = {}
for _, id in ipairs(ids) do
  local page = redis.call('HGET', KEYS[2], id)
  if page then found[#found + 1] = page end
end
return found
