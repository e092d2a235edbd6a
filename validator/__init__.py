"""The validator node: settings, store, chain, submissions, races, scheduler, API."""
