"""A Ray cluster on this machine for the bench tests, run as its own process (so the test process never
imports Ray): a head with no CPU for tries and one worker node of 1 CPU. It prints `address ADDR` and
`node NODE_ID` (the worker node), then obeys stdin: `swap` starts a second worker node and kills the
first (prints `swapped NODE_ID`); end of input shuts everything down."""
from __future__ import annotations

import sys

from ray.cluster_utils import Cluster


def main() -> int:
    cluster = Cluster(initialize_head=True, head_node_args={"num_cpus": 0, "include_dashboard": False})
    try:
        node = cluster.add_node(num_cpus=1)
        print(f"address {cluster.address}\nnode {node.node_id}", flush=True)
        for line in sys.stdin:
            if line.strip() == "swap":
                second = cluster.add_node(num_cpus=1)
                cluster.remove_node(node, allow_graceful=False)
                print(f"swapped {second.node_id}", flush=True)
    finally:
        cluster.shutdown()
    return 0


if __name__ == "__main__":
    sys.exit(main())
