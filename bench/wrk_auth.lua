-- wrk script for bench/wrk_jobstatus.sh: every request carries the user's bearer token.
local token = os.getenv("DDL_WRK_TOKEN")
wrk.headers["Authorization"] = "Bearer " .. token
