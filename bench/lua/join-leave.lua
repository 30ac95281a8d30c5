-- A join/leave write cycle over many resources: even requests join target k, odd requests leave the
-- target joined 512 requests earlier (its join has long completed, whichever process served it).
-- usage: wrk ... -s bench/lua/join-leave.lua <url> -- <targets-file>
local targets = {}
local i = 0
function init(args)
  for line in io.lines(args[1]) do targets[#targets + 1] = line end
end
function request()
  local n = i
  i = i + 1
  local k = math.floor(n / 2)
  if n % 2 == 1 and k >= 256 then
    return wrk.format("POST", "/v1/resources/" .. targets[((k - 256) % #targets) + 1] .. "/leave")
  end
  return wrk.format("POST", "/v1/resources/" .. targets[(k % #targets) + 1] .. "/join")
end
-- Non-2xx answers by status, printed at the end (counted per wrk thread, summed in done()).
local threads = {}
function setup(thread)
  table.insert(threads, thread)
end
nonok = ""
function response(status, headers, body)
  if status >= 300 then nonok = nonok .. status .. " " end
end
function done(summary, latency, requests)
  local counts = {}
  for _, thread in ipairs(threads) do
    for status in string.gmatch(thread:get("nonok"), "%d+") do counts[status] = (counts[status] or 0) + 1 end
  end
  for status, count in pairs(counts) do io.write(string.format("status %s: %d\n", status, count)) end
end
