"""Run the streams of measured coschedule instances on the GPU and time them (does the rate model predict reality?).

    python instances/coschedule/replay_streams.py OUT.json h100-corun-n10.json ...   (torch, CUDA GPU)

For each instance written by ``make_measured.py`` (kernels carry their kind
in ``profile.kind``), each stream's kernels are captured in one CUDA graph,
in stream order, with the launchers of ``measure_corun.py``. Timed with CUDA
events, median of ``--repeats`` runs after a warm-up:

* ``alone``: each stream's graph alone;
* ``serial``: the two graphs one after the other on one stream;
* ``two_streams``: the graphs on two streams behind one start event, stream
  0 queued first and stream 1 queued first (what the hardware does with two
  CUDA streams: the spec's ``fifo`` baseline models this).

Times are in ns, to compare with ``hpcsched solve INSTANCE -m fifo`` (the
model's prediction of ``two_streams``), ``-m serial`` and the optimum.

``--solution INSTANCE=SOLUTION`` also runs a non-preemptive schedule of the
instance (e.g. ``-m milp -o SOLUTION``): one CUDA graph with a branch per
stream, in stream order, where a kernel also waits (a graph edge) for the
last kernel of the other stream that the schedule ends at or before its
start. The GPU then keeps the schedule's pairings, never its exact times:
``schedule`` is the measured makespan of that dependency graph.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import statistics
from pathlib import Path

import torch

HERE = Path(__file__).resolve().parent


def _measure_module():
    spec = importlib.util.spec_from_file_location("measure_corun", HERE / "measure_corun.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _graph(launchers) -> torch.cuda.CUDAGraph:
    stream = torch.cuda.Stream()
    stream.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(stream):
        for launch in launchers:
            launch()
    torch.cuda.current_stream().wait_stream(stream)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        for launch in launchers:
            launch()
    torch.cuda.synchronize()
    return graph


def _time(run, repeats: int) -> float:
    samples = []
    for _ in range(repeats + 1):
        torch.cuda.synchronize()
        torch.cuda._sleep(1_000_000)
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        run(start)
        end.record()
        end.synchronize()
        samples.append(start.elapsed_time(end) * 1e6)
    return statistics.median(samples[1:])


def _schedule_graph(record: dict, solution: dict, launch_of, streams) -> torch.cuda.CUDAGraph:
    kernels, lanes = record["data"]["kernels"], record["data"]["streams"]
    lane_of = {k: s for s, lane in enumerate(lanes) for k in lane}
    segment = {seg["kernel"]: (seg["start"], seg["end"]) for seg in solution["solution"]["segments"]}
    graph, main = torch.cuda.CUDAGraph(), torch.cuda.Stream()
    with torch.cuda.stream(main):
        for launch in {kernels[k]["profile"]["kind"] for k in segment}:
            launch_of[launch]()  # warm-up outside the capture
    torch.cuda.synchronize()
    with torch.cuda.graph(graph, stream=main):
        for stream in streams:
            stream.wait_stream(main)
        done, waited = {}, [dict.fromkeys(range(len(lanes)), -1) for _ in lanes]
        for k in sorted(segment, key=lambda k: (segment[k][0], segment[k][1])):
            own = lane_of[k]
            for other, lane in enumerate(lanes):
                ended = [i for i in lane if other != own and segment[i][1] <= segment[k][0] * (1 + 1e-9)]
                if ended and lane.index(ended[-1]) > waited[own][other]:
                    streams[own].wait_event(done[ended[-1]])
                    waited[own][other] = lane.index(ended[-1])
            with torch.cuda.stream(streams[own]):
                launch_of[kernels[k]["profile"]["kind"]]()
                done[k] = torch.cuda.Event()
                done[k].record(streams[own])
        for stream in streams:
            main.wait_stream(stream)
    torch.cuda.synchronize()
    return graph


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("out")
    parser.add_argument("instances", nargs="+")
    parser.add_argument("--repeats", type=int, default=10)
    parser.add_argument("--solution", action="append", default=[], help="INSTANCE=SOLUTION: also run this schedule")
    args = parser.parse_args()
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.benchmark = True
    launch_of = {name: launch for name, (_, _, launch) in _measure_module()._kinds(torch.device("cuda")).items()}
    streams = (torch.cuda.Stream(), torch.cuda.Stream())
    results = {}
    for path in args.instances:
        record = json.loads(Path(path).read_text())
        kernels = record["data"]["kernels"]
        graphs = [_graph([launch_of[kernels[k]["profile"]["kind"]] for k in s]) for s in record["data"]["streams"]]

        def alone(start, graph):
            graph.replay()

        def two(start, order, graphs=graphs):
            for index in order:
                streams[index].wait_event(start)
                with torch.cuda.stream(streams[index]):
                    graphs[index].replay()
            for stream in streams:
                torch.cuda.current_stream().wait_stream(stream)

        results[Path(path).name] = {
            "alone": [_time(lambda start, g=g: alone(start, g), args.repeats) for g in graphs],
            "serial": _time(lambda start, graphs=graphs: [g.replay() for g in graphs], args.repeats),
            "two_streams": {
                "stream 0 first": _time(lambda start: two(start, (0, 1)), args.repeats),
                "stream 1 first": _time(lambda start: two(start, (1, 0)), args.repeats),
            },
        }
        for pair in args.solution:
            instance_file, solution_file = pair.split("=")
            if Path(instance_file).name == Path(path).name:
                solution = json.loads(Path(solution_file).read_text())
                graph = _schedule_graph(record, solution, launch_of, streams)
                results[Path(path).name][f"schedule {solution['method']}"] = {
                    "measured": _time(lambda start, graph=graph: graph.replay(), args.repeats),
                    "model": solution["objective"],
                }
        print(Path(path).name, results[Path(path).name], flush=True)
    record = {"gpu": torch.cuda.get_device_name(), "torch": torch.__version__, "repeats": args.repeats}
    Path(args.out).write_text(json.dumps({"about": record, "results": results}, indent=1))


if __name__ == "__main__":
    main()
