#!/usr/bin/env python3
"""Quorum writers that log every write a cluster acknowledged, and the check that reads them back.

Used by rolling-upgrade.sh; only the standard library, so it runs against any version of the server.

  acked_writes.py preload --targets URL,... --keys N --dir DIR
      PUTs pre-0 .. pre-(N-1) once each (ack=2&from=3), logs each acknowledged one in DIR/acked-pre.log.
  acked_writes.py write --targets URL,... --writers W --keys-per-writer K --rate R --dir DIR
      W writers, each cycling over its own K keys (w<i>-<k>) with values w<i>:<seq>, seq rising per
      writer, at about R writes a second each; after each acknowledged write a quorum read of one of
      the writer's keys it wrote before, which must return that write's value or a later one of the
      writer. Each write goes to the next target in turn; a target that refuses the connection (a
      node being restarted) is skipped for the next, and counted apart from the cluster's answers;
      DIR/targets, if it exists, replaces --targets whenever it changes.
      The phase counted is the one named in DIR/phase when the request starts; the writers stop once
      DIR/stop exists and leave their counts per phase in DIR/counts.json.
  acked_writes.py check --targets URL,... --dir DIR
      Reads every key of DIR/acked-*.log at quorum, and fails unless each returns its last
      acknowledged value or a later one of the same writer.
"""
import argparse
import collections
import http.client
import json
import os
import random
import sys
import threading
import time
import urllib.parse

QUORUM = "ack=2&from=3"
TIMEOUT_S = 10


class Node:
    """One keep-alive connection to a node, reopened after any error."""

    def __init__(self, url):
        parsed = urllib.parse.urlsplit(url)
        self.url, self.host, self.port = url, parsed.hostname, parsed.port
        self.connection = None

    def request(self, method, path, body=None):
        """(status, body bytes); raises OSError when the node cannot be reached."""
        for attempt in (0, 1):
            if self.connection is None:
                self.connection = http.client.HTTPConnection(self.host, self.port, timeout=TIMEOUT_S)
            try:
                self.connection.request(method, path, body=body)
                response = self.connection.getresponse()
                return response.status, response.read()
            except (OSError, http.client.HTTPException) as e:
                self.connection.close()
                self.connection = None
                # A keep-alive connection the node closed while idle fails at once: try a new one.
                if attempt == 1 or isinstance(e, (ConnectionRefusedError, TimeoutError)):
                    raise OSError(str(e)) from e
        raise AssertionError("unreachable")


class Targets:
    """Round robin over the nodes, skipping those that refuse connections; with a file, the nodes it
    lists (comma-separated), read again whenever it changes."""

    def __init__(self, urls, file=None):
        self.file, self.mtime = file, None
        self.nodes = [Node(u) for u in urls.split(",")]
        self.next = random.randrange(len(self.nodes))

    def reload(self):
        try:
            mtime = os.stat(self.file).st_mtime_ns
        except OSError:
            return
        if mtime != self.mtime:
            self.mtime = mtime
            with open(self.file) as f:
                urls = f.read().strip()
            if urls:
                self.nodes = [Node(u) for u in urls.split(",")]
                self.next = random.randrange(len(self.nodes))

    def request(self, method, path, body=None):
        """(status, body, nodes skipped); status None if no node could be reached."""
        if self.file:
            self.reload()
        skipped = 0
        for _ in range(len(self.nodes)):
            node = self.nodes[self.next]
            self.next = (self.next + 1) % len(self.nodes)
            try:
                status, data = node.request(method, path, body)
                return status, data, skipped
            except OSError:
                skipped += 1
        return None, b"", skipped


def entity(key):
    return "/v0/entity?id=" + urllib.parse.quote(key, safe="") + "&" + QUORUM


def parse_value(value):
    """'w3:17' -> ('w3', 17)."""
    writer, _, seq = value.partition(":")
    return writer, int(seq)


def preload(args):
    keys = list(range(args.keys))
    lock = threading.Lock()
    failed = []
    log = open(os.path.join(args.dir, "acked-pre.log"), "a", buffering=1)

    def run():
        targets = Targets(args.targets)
        while True:
            with lock:
                if not keys:
                    return
                k = keys.pop()
            key, value = "pre-%d" % k, "pre:%d" % k
            status, _, _ = targets.request("PUT", entity(key), value.encode())
            with lock:
                if status == 201:
                    log.write("%s %s\n" % (key, value))
                else:
                    failed.append((key, status))

    threads = [threading.Thread(target=run) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    log.close()
    print("preloaded %d keys, %d failed%s" % (args.keys - len(failed), len(failed),
                                               (": " + str(failed[:5])) if failed else ""))
    return 1 if failed else 0


def write(args):
    counts = collections.defaultdict(collections.Counter)  # phase -> counter
    lock = threading.Lock()
    phase_file, stop_file = os.path.join(args.dir, "phase"), os.path.join(args.dir, "stop")

    def phase():
        try:
            with open(phase_file) as f:
                return f.read().strip() or "?"
        except OSError:
            return "?"

    def count(ph, what, n=1):
        with lock:
            counts[ph][what] += n

    def writer(i):
        name = "w%d" % i
        targets = Targets(args.targets, os.path.join(args.dir, "targets"))
        acked = {}  # key -> seq of its last acknowledged write
        log = open(os.path.join(args.dir, "acked-%s.log" % name), "a", buffering=1)
        seq = 0
        period = 1.0 / args.rate
        next_at = time.monotonic()
        while not os.path.exists(stop_file):
            ph = phase()
            seq += 1
            key, value = "%s-%d" % (name, seq % args.keys_per_writer), "%s:%d" % (name, seq)
            status, data, skipped = targets.request("PUT", entity(key), value.encode())
            count(ph, "skipped_down_node", skipped)
            if status == 201:
                acked[key] = seq
                log.write("%s %s\n" % (key, value))
                count(ph, "writes_acked")
            else:
                count(ph, "writes_failed")
                count(ph, "write_%s" % (status or "unreachable"))
            if acked:
                key = random.choice(list(acked)) if len(acked) < 64 else "%s-%d" % (name, random.randrange(args.keys_per_writer))
                if key in acked:
                    status, data, skipped = targets.request("GET", entity(key))
                    count(ph, "skipped_down_node", skipped)
                    if status == 200:
                        got_writer, got_seq = parse_value(data.decode())
                        if got_writer != name or got_seq < acked[key]:
                            count(ph, "reads_stale")
                            print("STALE read of %s: %r, acknowledged %s:%d" % (key, data, name, acked[key]),
                                  file=sys.stderr, flush=True)
                        else:
                            count(ph, "reads_ok")
                    else:
                        count(ph, "reads_failed")
                        count(ph, "read_%s" % (status or "unreachable"))
            next_at += period
            delay = next_at - time.monotonic()
            if delay > 0:
                time.sleep(delay)
            else:
                next_at = time.monotonic()
        log.close()

    threads = [threading.Thread(target=writer, args=(i,)) for i in range(args.writers)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    with open(os.path.join(args.dir, "counts.json"), "w") as f:
        json.dump(counts, f, indent=1)
    return 0


def check(args):
    last = {}  # key -> (writer, seq) of its last acknowledged write
    for name in sorted(os.listdir(args.dir)):
        if name.startswith("acked-") and name.endswith(".log"):
            with open(os.path.join(args.dir, name)) as f:
                for line in f:
                    if not line.endswith("\n"):
                        continue  # a writer still running is writing this line
                    key, value = line.split()
                    w, s = parse_value(value)
                    if key not in last or s > last[key][1]:
                        last[key] = (w, s)
    keys = sorted(last)
    lock = threading.Lock()
    problems, unreachable = [], []
    position = [0]

    def run():
        targets = Targets(args.targets)
        while True:
            with lock:
                if position[0] >= len(keys):
                    return
                key = keys[position[0]]
                position[0] += 1
            status, data = None, b""
            for _ in range(5):  # a 504 under a node's restart is retried; what counts is the data
                status, data, _ = targets.request("GET", entity(key))
                if status in (200, 404):
                    break
                time.sleep(0.5)
            w, s = last[key]
            if status == 200:
                got_w, got_s = parse_value(data.decode())
                if got_w != w or got_s < s:
                    with lock:
                        problems.append("%s: read %s:%d, acknowledged %s:%d" % (key, got_w, got_s, w, s))
            elif status == 404:
                with lock:
                    problems.append("%s: not found, acknowledged %s:%d" % (key, w, s))
            else:
                with lock:
                    unreachable.append("%s: status %s" % (key, status))

    threads = [threading.Thread(target=run) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    print("checked %d keys: %d lost or stale, %d unreadable" % (len(keys), len(problems), len(unreachable)))
    for p in (problems + unreachable)[:20]:
        print("  " + p)
    return 1 if problems or unreachable else 0


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("command", choices=["preload", "write", "check"])
    parser.add_argument("--targets", required=True)
    parser.add_argument("--dir", required=True)
    parser.add_argument("--keys", type=int, default=3000)
    parser.add_argument("--writers", type=int, default=4)
    parser.add_argument("--keys-per-writer", type=int, default=500)
    parser.add_argument("--rate", type=float, default=20.0)
    args = parser.parse_args()
    return {"preload": preload, "write": write, "check": check}[args.command](args)


if __name__ == "__main__":
    sys.exit(main())
