"""Running untrusted agents: bundles, the gateway (their only door out), the harness and the sandbox backends."""
