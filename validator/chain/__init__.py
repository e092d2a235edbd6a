"""Chain access behind one port: BittensorChain (bittensor 11.x) and LocalChain (a dev chain in a file)."""
