-- wrk script for bench-shake: every request is one `shake` callable of the same user on a campaign without a
-- cooldown, so every one pays (an atomic write of wallet, ledger entry, stats and cooldown state).
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.headers["Authorization"] = "Bearer " .. os.getenv("TOKEN")
wrk.body = '{"data": {"campaignId": "bench", "proof": {"watermark": "WM-BENCH"}}}'
