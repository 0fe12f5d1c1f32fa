#!/usr/bin/env bash
# JSON over HTTP and gRPC beside XRpc's binary protocol, against the demo provider, in one run:
#  - the same call (UserService.getUser(1)) over XRpc's binary protocol (the stress tool, callers in
#    a JVM of their own), over HTTP/1.1 and over HTTP/2 (h2load, JSON bodies), rounds taking turns;
#  - the binary calls also against a second provider with HTTP off (--no-http), so that what the
#    port's protocol detection costs binary callers shows as a ratio in the same run;
#  - gRPC (protobuf, the contract XRpc derives) from the same h2load callers to XRpc's port and,
#    with -Ppeers, to grpc-java's own server: the request GetUser{id: 1} is the same bytes to both.
# Needs xrpc-benchmark/target/benchmarks.jar (mvn -q -pl xrpc-benchmark -am -DskipTests package)
# and h2load (Debian: apt-get install nghttp2-client). Writes $OUT/results.md.
set -euo pipefail
cd "$(dirname "$0")/.."
JAR=xrpc-benchmark/target/benchmarks.jar
OUT=${OUT:-xrpc-benchmark/target/http-bench}
ROUNDS=${ROUNDS:-3}
DURATION=${DURATION:-10}
CONNECTIONS=${CONNECTIONS:-32}
command -v h2load > /dev/null || { echo "h2load is not installed (Debian: apt-get install nghttp2-client)"; exit 2; }
[ -f "$JAR" ] || { echo "$JAR is missing: mvn -q -pl xrpc-benchmark -am -DskipTests package"; exit 2; }
rm -rf "$OUT" && mkdir -p "$OUT"
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
ON=$(free_port); OFF=$(free_port)
xrpc-benchmark/xrpc demo-provider --port "$ON" > "$OUT/provider-http.log" 2>&1 &
P1=$!
xrpc-benchmark/xrpc demo-provider --port "$OFF" --no-http > "$OUT/provider-xrpc-only.log" 2>&1 &
P2=$!
P3=
trap 'kill $P1 $P2 $P3 2>/dev/null || true' EXIT
xrpc-benchmark/xrpc list --address "127.0.0.1:$ON" --wait 60s > /dev/null
xrpc-benchmark/xrpc list --address "127.0.0.1:$OFF" --wait 60s > /dev/null
URL="http://127.0.0.1:$ON/io.xrpc.benchmark.model.UserService/getUser"
printf '1' > "$OUT/body.json"
printf '\x00\x00\x00\x00\x02\x08\x01' > "$OUT/body.grpc" # a gRPC message: 5-byte prefix, then id = 1
# grpc-java's own server of the same service (built with -Ppeers), where the jar has it: the same
# h2load callers send it GetUser(UserId{id: 1}) in protobuf, a gRPC message (5-byte prefix).
GRPC=
if unzip -l "$JAR" | grep 'io/xrpc/benchmark/peers/GrpcContender.class' > /dev/null; then
  mkfifo "$OUT/grpc.stdin"
  java -cp "$JAR" io.xrpc.benchmark.stress.ProviderMain grpc - < "$OUT/grpc.stdin" > "$OUT/provider-grpc.log" 2>&1 &
  P3=$!
  exec 9> "$OUT/grpc.stdin" # held open: the provider serves until it closes
  for _ in $(seq 1 600); do grep -q READY "$OUT/provider-grpc.log" && break; sleep 0.1; done
  GRPC=$(awk '/READY/ {print $2}' "$OUT/provider-grpc.log")
fi
# CPU of a process (user + system), in clock ticks: what each provider spends over a run.
ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
measure() { # $1 provider pid, $2 name, then the command; writes $OUT/$2.cpu: provider ticks, client seconds
  local before after
  before=$(ticks "$1")
  /usr/bin/time -f "%U %S" -o "$OUT/$2.client" "${@:3}"
  after=$(ticks "$1")
  echo "$((after - before)) $(getconf CLK_TCK) $(awk '{print $1 + $2}' "$OUT/$2.client")" > "$OUT/$2.cpu"
}
stress() { # $1 port, $2 out dir
  java -cp "$JAR" io.xrpc.benchmark.stress.StressTool --target "127.0.0.1:$1" \
    --call io.xrpc.benchmark.model.UserService/getUser --args '[1]' --threads "$CONNECTIONS" \
    --duration "${DURATION}s" --warmup 3s --max-warmup 3s --quiet --out "$2" > "$2.log" 2>&1
}
h1() { h2load --h1 -c "$CONNECTIONS" -m 1 -D "$1" -d "$OUT/body.json" -H 'content-type: application/json' "${@:2}" "$URL"; }
h2() { h2load -c 4 -m $((CONNECTIONS / 4)) -D "$1" -d "$OUT/body.json" -H 'content-type: application/json' "${@:2}" "$URL"; }
grpc() { h2load -c 4 -m $((CONNECTIONS / 4)) -D "$1" -d "$OUT/body.grpc" -H 'content-type: application/grpc' \
  -H 'te: trailers' "${@:2}" "http://127.0.0.1:$GRPC/xrpc.benchmark.UserService/GetUser"; }
xgrpc() { h2load -c 4 -m $((CONNECTIONS / 4)) -D "$1" -d "$OUT/body.grpc" -H 'content-type: application/grpc' \
  -H 'te: trailers' "${@:2}" "http://127.0.0.1:$ON/io.xrpc.benchmark.model.UserService/getUser"; }
export JAR OUT URL CONNECTIONS DURATION GRPC ON
export -f stress h1 h2 grpc xgrpc
for r in $(seq 1 "$ROUNDS"); do
  echo "round $r"
  measure "$P1" "r$r-binary" bash -c "stress $ON $OUT/r$r-binary"
  measure "$P2" "r$r-binary-no-http" bash -c "stress $OFF $OUT/r$r-binary-no-http"
  h1 3 > /dev/null # warm-up, not measured
  measure "$P1" "r$r-h1" bash -c "h1 $DURATION --log-file $OUT/r$r-h1.tsv > $OUT/r$r-h1.txt"
  h2 3 > /dev/null
  measure "$P1" "r$r-h2" bash -c "h2 $DURATION --log-file $OUT/r$r-h2.tsv > $OUT/r$r-h2.txt"
  xgrpc 3 > /dev/null
  measure "$P1" "r$r-xgrpc" bash -c "xgrpc $DURATION --log-file $OUT/r$r-xgrpc.tsv > $OUT/r$r-xgrpc.txt"
  if [ -n "$GRPC" ]; then
    grpc 3 > /dev/null
    measure "$P3" "r$r-grpc" bash -c "grpc $DURATION --log-file $OUT/r$r-grpc.tsv > $OUT/r$r-grpc.txt"
  fi
done
python3 - "$OUT" "$ROUNDS" "$CONNECTIONS" <<'PY'
import json, re, statistics, sys
out, rounds, conc = sys.argv[1], int(sys.argv[2]), sys.argv[3]
def cpu(name, calls):
    ticks, hz, client = open(f"{out}/{name}.cpu").read().split()
    return int(ticks) / int(hz) / calls * 1e6, float(client) / calls * 1e6
def binary(d):
    lv = json.load(open(f"{out}/{d}/results.json"))["levels"][0]
    calls = sum(t["callsPerSecond"] for t in lv["timeline"])  # one-second points, warm-up included: every call
    p, c = cpu(d, calls)
    return lv["throughput"], lv["p50Micros"], lv["p99Micros"], lv.get("errorCount", 0), p, c
def h2load(name):
    txt = open(f"{out}/{name}.txt").read()
    rps = float(re.search(r"finished in [^,]+, ([0-9.]+) req/s", txt).group(1))
    failed = int(re.search(r"(\d+) failed", txt).group(1))
    done = int(re.search(r"(\d+) done", txt).group(1))
    lat = sorted(int(l.split()[2]) for l in open(f"{out}/{name}.tsv") if l.strip())
    pct = lambda p: lat[min(len(lat) - 1, int(len(lat) * p))]
    p, c = cpu(name, done)
    return rps, pct(0.5), pct(0.99), failed, p, c
rows = {"binary": [], "binary, provider without HTTP": [], "HTTP/1.1 JSON": [], "HTTP/2 JSON": [],
        "XRpc's gRPC side, protobuf over HTTP/2": []}
import os
if os.path.exists(f"{out}/r1-grpc.txt"):
    rows["grpc-java's own server, protobuf over HTTP/2 (same h2load callers)"] = []
for r in range(1, rounds + 1):
    rows["binary"].append(binary(f"r{r}-binary"))
    rows["binary, provider without HTTP"].append(binary(f"r{r}-binary-no-http"))
    rows["HTTP/1.1 JSON"].append(h2load(f"r{r}-h1"))
    rows["HTTP/2 JSON"].append(h2load(f"r{r}-h2"))
    rows["XRpc's gRPC side, protobuf over HTTP/2"].append(h2load(f"r{r}-xgrpc"))
    if len(rows) > 5:
        rows["grpc-java's own server, protobuf over HTTP/2 (same h2load callers)"].append(h2load(f"r{r}-grpc"))
base = [x[0] for x in rows["binary"]]
lines = [f"getUser(1) against the demo provider, {conc} callers (HTTP/2: 4 connections x {int(conc)//4} streams), "
         f"{rounds} rounds taking turns; medians of the rounds, ratios the median of each round's.", "",
         "| protocol | calls/s | vs binary | p50 us | p99 us | failed | provider CPU us/call | caller CPU us/call |",
         "|---|---:|---:|---:|---:|---:|---:|---:|"]
for name, v in rows.items():
    ratio = statistics.median(v[i][0] / base[i] for i in range(rounds))
    lines.append(f"| {name} | {statistics.median(x[0] for x in v):,.0f} | {ratio:.2f}x | "
                 f"{statistics.median(x[1] for x in v):,.0f} | {statistics.median(x[2] for x in v):,.0f} | "
                 f"{sum(x[3] for x in v)} | {statistics.median(x[4] for x in v):.1f} | {statistics.median(x[5] for x in v):.1f} |")
lines.append("")
lines.append("Rounds (calls/s): " + "; ".join(f"{n}: " + ", ".join(f"{x[0]:,.0f}" for x in v) for n, v in rows.items()))
open(f"{out}/results.md", "w").write("\n".join(lines) + "\n")
print("\n".join(lines))
PY
