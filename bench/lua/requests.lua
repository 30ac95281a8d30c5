-- Requests a random line of a file, each line "METHOD<TAB>PATH<TAB>HEADER-NAME<TAB>HEADER-VALUE": many
-- credentials (sessions, tokens) and paths rotating, as many users' calls arrive.
-- usage: wrk ... -s bench/lua/requests.lua <url> -- <requests-file>
local requests = {}
function init(args)
  for line in io.lines(args[1]) do
    local method, path, name, value = line:match("^([^\t]+)\t([^\t]+)\t([^\t]+)\t(.*)$")
    requests[#requests + 1] = wrk.format(method, path, { [name] = value })
  end
  math.randomseed(os.time())
end
function request()
  return requests[math.random(#requests)]
end
