-- POSTs the JSON body of the file BENCH_BODY_FILE to BENCH_PATH with the bearer token BENCH_TOKEN.
-- (wrk reports answers other than 2xx/3xx itself; the bench requires none.)
local function read(path)
  local file = assert(io.open(path, "rb"))
  local text = file:read("*a")
  file:close()
  return text
end

wrk.method = "POST"
wrk.path = os.getenv("BENCH_PATH")
wrk.body = read(os.getenv("BENCH_BODY_FILE"))
wrk.headers["Content-Type"] = "application/json"
local token = os.getenv("BENCH_TOKEN")
if token and token ~= "" then wrk.headers["Authorization"] = "Bearer " .. token end
