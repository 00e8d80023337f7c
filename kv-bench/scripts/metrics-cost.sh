#!/usr/bin/env bash
# What metrics cost a node: ab-cost.sh with one node --metrics on against one --metrics off, loaded in
# turn, while /metrics of the node under load is read every SCRAPE_S seconds (default 5), as
# Prometheus would. Every setting of ab-cost.sh applies.
#
#   kv-bench/scripts/metrics-cost.sh
#   ROUNDS=3 DURATION=5 NODES=3 LOAD_FLAGS="--ack 2 --from 3" kv-bench/scripts/metrics-cost.sh
export A_NAME=on B_NAME=off A_FLAGS="--metrics on" B_FLAGS="--metrics off" SCRAPE_S=${SCRAPE_S:-5}
exec "$(dirname "$0")/ab-cost.sh"
