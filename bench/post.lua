-- wrk script for bench/throughput.py and bench/peers.py: POST the JSON body given in the environment to the
-- path given there, with the headers of BENCH_HEADERS too ("name: value" lines; peers.py's Messages requests).
wrk.method = "POST"
wrk.path = os.getenv("BENCH_PATH") or "/v1/chat/completions"
wrk.body = os.getenv("BENCH_BODY")
wrk.headers["Content-Type"] = "application/json"
wrk.headers["Authorization"] = "Bearer sk-bench"
for name, value in string.gmatch(os.getenv("BENCH_HEADERS") or "", "([^:\n]+):%s*([^\n]*)") do
  wrk.headers[name] = value
end
