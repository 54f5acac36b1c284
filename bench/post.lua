-- wrk script for bench/throughput.py and bench/peers.py: POST the JSON body given in the environment to the
-- path given there, with the headers of BENCH_HEADERS too ("name: value" lines; peers.py's Messages requests).
-- Every "#N#" in the body becomes a count of this thread's requests, so that no two bodies are the same: no
-- server may answer from a cache of the request's bytes (the callers put it in the user's message).
wrk.method = "POST"
wrk.path = os.getenv("BENCH_PATH") or "/v1/chat/completions"
wrk.body = os.getenv("BENCH_BODY")
wrk.headers["Content-Type"] = "application/json"
wrk.headers["Authorization"] = "Bearer sk-bench"
for name, value in string.gmatch(os.getenv("BENCH_HEADERS") or "", "([^:\n]+):%s*([^\n]*)") do
  wrk.headers[name] = value
end

local sent = 0
if wrk.body and string.find(wrk.body, "#N#", 1, true) then
  request = function()
    sent = sent + 1
    return wrk.format(nil, nil, nil, (string.gsub(wrk.body, "#N#", tostring(sent))))
  end
end
