-- Many users joining and leaving one resource: request n is user (n mod N)'s, a join on even laps over
-- the users and a leave on odd ones. With at most 32 requests in flight and N = 200, a user's previous
-- request has been answered before their next one is sent; a join of a member is answered 200.
-- usage: wrk ... -s bench/lua/join-leave-users.lua <url> -- <file of "PATH-PREFIX<TAB>AUTHORIZATION" lines>
local users = {}
local i = 0
function init(args)
  for line in io.lines(args[1]) do
    local prefix, authorization = line:match("^([^\t]+)\t(.*)$")
    users[#users + 1] = { prefix = prefix, headers = { ["authorization"] = authorization } }
  end
end
function request()
  local n = i
  i = i + 1
  local user = users[(n % #users) + 1]
  local action = (math.floor(n / #users) % 2 == 0) and "/join" or "/leave"
  return wrk.format("POST", user.prefix .. action, user.headers)
end
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
