#!/usr/bin/env python3
"""Runs a program traced by the XPTI emitter with the timeline subscriber, then checks the file it wrote: that
`python3 -m json.tool` accepts it, and that it is a trace-event timeline a viewer loads (every event has a name, a
phase, a timestamp, pid and tid; B/E slices nest per thread; async task slices pair).

Usage: check_timeline.py --program P --emitter E --dispatcher D --subscriber S --layer-dir L --output F
                         [--preload-prefix LIB] [-- program arguments]
"""
import argparse
import json
import os
import subprocess
import sys


def run_traced(args):
    env = dict(os.environ)
    env.pop("XPTI_TRACE_ENABLE", None)
    preload = " ".join(p for p in (args.preload_prefix, args.emitter) if p)
    env.update({
        "LD_PRELOAD": preload,
        "ZE_ENABLE_TRACING_LAYER": "1",
        "LD_LIBRARY_PATH": os.pathsep.join(p for p in (args.layer_dir, env.get("LD_LIBRARY_PATH", "")) if p),
        "XPTI_FRAMEWORK_DISPATCHER": args.dispatcher,
        "XPTI_SUBSCRIBERS": args.subscriber,
        "ZX_TIMELINE_FILE": args.output,
    })
    if os.path.exists(args.output):
        os.remove(args.output)
    done = subprocess.run([args.program] + args.rest, env=env, capture_output=True, text=True, timeout=50)
    if done.returncode != 0:
        sys.stderr.write(done.stdout + done.stderr)
        raise SystemExit(f"check_timeline: {args.program} exited with {done.returncode}")
    if not os.path.exists(args.output):
        sys.stderr.write(done.stderr)
        raise SystemExit(f"check_timeline: no timeline written to {args.output}")


def check_events(events):
    stacks, tasks, calls = {}, {}, 0
    for i, e in enumerate(events):
        for key in ("name", "ph", "ts", "pid", "tid"):
            if key not in e:
                raise SystemExit(f"check_timeline: event {i} has no '{key}': {e}")
        ph = e["ph"]
        if ph == "B":
            stacks.setdefault(e["tid"], []).append(e["name"])
            calls += e.get("cat") == "level_zero"
        elif ph == "E":
            stack = stacks.get(e["tid"], [])
            if not stack or stack.pop() != e["name"]:
                raise SystemExit(f"check_timeline: event {i} ends a slice that is not open on its thread: {e}")
        elif ph in ("b", "e"):
            tasks[e["id"]] = tasks.get(e["id"], 0) + (1 if ph == "b" else -1)
    open_slices = {tid: s for tid, s in stacks.items() if s}
    if open_slices:
        raise SystemExit(f"check_timeline: slices left open: {open_slices}")
    if any(n != 0 for n in tasks.values()):
        raise SystemExit("check_timeline: a task_begin without its task_end (or the reverse)")
    if calls == 0:
        raise SystemExit("check_timeline: no Level Zero call in the timeline")
    return calls, len(tasks)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    for name in ("program", "emitter", "dispatcher", "subscriber", "layer-dir", "output"):
        ap.add_argument("--" + name, required=True)
    ap.add_argument("--preload-prefix", default="")
    ap.add_argument("rest", nargs="*")
    args = ap.parse_args()
    run_traced(args)
    tool = subprocess.run([sys.executable, "-m", "json.tool", args.output], capture_output=True, text=True)
    if tool.returncode != 0:
        raise SystemExit(f"check_timeline: python3 -m json.tool rejects {args.output}: {tool.stderr.strip()}")
    with open(args.output, encoding="utf-8") as f:
        trace = json.load(f)
    events = trace.get("traceEvents") if isinstance(trace, dict) else None
    if not isinstance(events, list) or not events:
        raise SystemExit("check_timeline: no traceEvents array")
    calls, tasks = check_events(events)
    print(f"check_timeline: {args.output}: {len(events)} events, {calls} Level Zero calls, {tasks} tasks; "
          f"valid JSON in the trace-event format")
    return 0


if __name__ == "__main__":
    sys.exit(main())
