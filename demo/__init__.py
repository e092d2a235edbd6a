"""`arena-validator demo` and what it plays with: one whole race on this machine, with nothing faked.

Kept out of the node (`validator`) because nothing of a running validator needs it; it sits above every other
package (docs/architecture.md, "Layers") and the node's CLI reaches it only when the `demo` command runs.

- ``run``: the demo itself (`run_demo`): catalog, signed pack, a local chain, miners publishing agents, the nodes;
- ``agents``: the demo's miners (the offline template as is and in variants, a copy, a hostile agent, a subnet-15
  one-file agent), also what tests and the bench race (`MINER_TEMPLATE`, `write_template`, `variant`);
- ``llm``: the scripted ReAct model the subnet-15 agent talks to, on ``scripted_llm``: a scripted OpenAI-compatible
  server on loopback (the tests' upstream LLM is the same server with its own responders);
- ``pool``: the two validators that race the slot and pool their results, what each saw, and the audit's verdict;
- ``results``: the leaderboard, the rejected copy, the weights and the trajectories, printed;
- ``local``: what the demo's processes share (a free loopback port, an installed command's path).
"""
