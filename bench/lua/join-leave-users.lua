-- Many users joining and leaving one resource: each user alternates join, leave, join, … and never has
-- two requests in flight, so no leave can overtake its join (a request that waits a little longer than
-- the others would otherwise let later ones pass it). Each request carries X-Request-Id "u<user>-<n>",
-- which the gateway echoes, so an answer tells whose it was. A run starts every user with a join (a
-- join of a member is answered 200).
-- usage: wrk ... -s bench/lua/join-leave-users.lua <url> -- <file of "PATH-PREFIX<TAB>AUTHORIZATION" lines>
local users = {}
local busy = {}
local joins = {}
local next_user = 1
local n = 0
function init(args)
  for line in io.lines(args[1]) do
    local prefix, authorization = line:match("^([^\t]+)\t(.*)$")
    users[#users + 1] = { prefix = prefix, authorization = authorization }
    busy[#users] = false
    joins[#users] = true
  end
end
function request()
  -- The next user with nothing in flight (there are more users than connections).
  local u = next_user
  for _ = 1, #users do
    if not busy[u] then break end
    u = (u % #users) + 1
  end
  next_user = (u % #users) + 1
  busy[u] = true
  n = n + 1
  local user = users[u]
  local action = joins[u] and "/join" or "/leave"
  joins[u] = not joins[u]
  local headers = { ["authorization"] = user.authorization, ["x-request-id"] = "u" .. u .. "-" .. n }
  return wrk.format("POST", user.prefix .. action, headers)
end
local threads = {}
function setup(thread)
  table.insert(threads, thread)
end
nonok = ""
function response(status, headers, body)
  local u = tonumber((headers["X-Request-Id"] or headers["x-request-id"] or ""):match("^u(%d+)-"))
  if u then busy[u] = false end
  if status >= 300 then nonok = nonok .. status .. " " end
end
function done(summary, latency, requests)
  local counts = {}
  for _, thread in ipairs(threads) do
    for status in string.gmatch(thread:get("nonok"), "%d+") do counts[status] = (counts[status] or 0) + 1 end
  end
  for status, count in pairs(counts) do io.write(string.format("status %s: %d\n", status, count)) end
end
