-- A join/leave write cycle over many resources: even requests join target k, odd requests leave the
-- target joined 64 requests earlier (so its join has completed with 32 connections in flight).
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
  if n % 2 == 1 and k >= 32 then
    return wrk.format("POST", "/v1/resources/" .. targets[((k - 32) % #targets) + 1] .. "/leave")
  end
  return wrk.format("POST", "/v1/resources/" .. targets[(k % #targets) + 1] .. "/join")
end
