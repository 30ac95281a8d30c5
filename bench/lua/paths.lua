-- Requests a random path from a file (one path per line), with optional fixed headers set by wrk -H.
-- usage: wrk ... -s bench/lua/paths.lua <url> -- <paths-file>
local paths = {}
function init(args)
  for line in io.lines(args[1]) do paths[#paths + 1] = line end
  math.randomseed(os.time())
end
function request()
  return wrk.format("GET", paths[math.random(#paths)])
end
