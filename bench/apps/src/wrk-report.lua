-- bench/apps: wrk script that prints one machine-readable line at the end,
--   WRK_RESULT requests=N duration_us=N ... p50_us=N p99_us=N p999_us=N max_us=N
-- (wrk's latencies are microseconds from send to response on a connection,
-- closed loop; wrk 4.1 corrects the histogram for coordinated omission before
-- done() sees it, so the percentiles are not raw: bench/apps/README.md; max is).
done = function(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    "WRK_RESULT requests=%d duration_us=%d bytes=%d err_connect=%d err_read=%d err_write=%d err_status=%d err_timeout=%d p50_us=%d p99_us=%d p999_us=%d max_us=%d\n",
    summary.requests, summary.duration, summary.bytes, e.connect, e.read, e.write, e.status, e.timeout,
    latency:percentile(50), latency:percentile(99), latency:percentile(99.9), latency.max))
end
