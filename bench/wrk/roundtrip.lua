-- Management round trips: POSTs a recipe to /api/recipes, then GETs /api/recipes/<id> with the id
-- the create answered; the ids of answered creates wait in a queue until a connection asks for its
-- next request. Bearer token BENCH_TOKEN. done() prints the count of completed gets (round trips).
local token = os.getenv("BENCH_TOKEN")
local created = {}
local create

-- Formatted in init, once wrk has set the Host header that wrk.format adds.
function init(args)
  create = wrk.format("POST", "/api/recipes", {
    ["Content-Type"] = "application/json",
    ["Authorization"] = "Bearer " .. token,
  }, '{"recipe":{"name":"Bench orders","code":"{\\"keyword\\":\\"trigger\\"}","config":"[]"}}')
end
-- A global, so that done() can read each thread's count.
gets = 0
local threads = {}

function setup(thread)
  table.insert(threads, thread)
end

function request()
  local id = table.remove(created)
  if id then
    return wrk.format("GET", "/api/recipes/" .. id, { ["Authorization"] = "Bearer " .. token })
  end
  return create
end

function response(status, headers, body)
  local id = body:match('^{"success":true,"id":(%d+)}$') or body:match('^{"success": *true, *"id": *(%d+)')
  if id then
    table.insert(created, id)
  elseif status == 200 then
    gets = gets + 1
  end
end

function done(summary, latency, requests)
  local total = 0
  for _, thread in ipairs(threads) do
    total = total + thread:get("gets")
  end
  io.write(string.format("Round trips: %d\n", total))
end
