#!/usr/bin/env bash
# Runs a command inside a network namespace of its own, for contenders such as Apache Dubbo that
# advertise and connect through the host's first non-loopback address. The namespace has lo and
# a veth pair with both ends inside, one holding 198.18.0.1 (the range reserved for
# benchmarking), so no traffic can leave it. Needs root. Not for CI.
#   xrpc-benchmark/benchmark-netns.sh java -cp xrpc-benchmark/target/benchmarks.jar \
#       io.xrpc.benchmark.stress.StressTool --contender raw-netty,xrpc,dubbo --provider fork
set -euo pipefail
ns=xrpcbench
cleanup() { ip netns del "$ns" 2>/dev/null || true; }
trap cleanup EXIT
cleanup
ip netns add "$ns"
ip netns exec "$ns" ip link set lo up
ip link add xrpc-veth0 netns "$ns" type veth peer name xrpc-veth1 netns "$ns"
ip netns exec "$ns" ip addr add 198.18.0.1/24 dev xrpc-veth0
ip netns exec "$ns" ip addr add 198.18.0.2/24 dev xrpc-veth1
ip netns exec "$ns" ip link set xrpc-veth0 up
ip netns exec "$ns" ip link set xrpc-veth1 up
ip netns exec "$ns" "$@"
