"""M/M/1 queue at rho = 0.9 in SimPy, the peer of the model-engine kernel benchmark.

Usage: /usr/bin/python3 bench/mm1-simpy.py <customers> [seed] [cpu]
Prints one JSON line: customers served, wall seconds, and events per second counted as
two per customer (arrival and departure), the same count the JavaScript loops report.
"""
import json
import random
import sys
import time

import simpy

ARRIVAL_RATE = 0.9
SERVICE_RATE = 1.0


def main() -> None:
    customers = int(sys.argv[1]) if len(sys.argv) > 1 else 100_000
    seed = int(sys.argv[2]) if len(sys.argv) > 2 else 1
    # "cpu": time the process's CPU time instead of the wall clock (a machine shared with others).
    clock = time.process_time if len(sys.argv) > 3 and sys.argv[3] == "cpu" else time.perf_counter
    rng = random.Random(seed)
    env = simpy.Environment()
    server = simpy.Resource(env, capacity=1)
    served = [0]
    wait_sum = [0.0]

    def customer(arrived):
        with server.request() as req:
            yield req
            wait_sum[0] += env.now - arrived
            yield env.timeout(rng.expovariate(SERVICE_RATE))
        served[0] += 1

    def source():
        for _ in range(customers):
            yield env.timeout(rng.expovariate(ARRIVAL_RATE))
            env.process(customer(env.now))

    env.process(source())
    start = clock()
    env.run()
    seconds = clock() - start
    print(json.dumps({
        "customers": served[0],
        "seconds": seconds,
        "eventsPerSecond": 2 * served[0] / seconds,
        "meanWait": wait_sum[0] / served[0],
    }))


if __name__ == "__main__":
    main()
