"""The offline template's pieces, in the order a run uses them (``agent.py``'s docstring walks through them):

- `text`: words: tokens, stems, filler words, service markers;
- `query`: the query parsed into requested items (`Item`: wording, price range, services, search words), and a
  voucher task's voucher;
- `rank`: how well a viewed product explains an item (`Ranker`);
- `search`: the run's tool calls within its budget, and the candidates of one item (`Session`);
- `basket`: the voucher arithmetic and the baskets of several items (one shop, under a budget);
- `web`: a web task's fact, read off the pages ``web_search`` finds;
- `answer`: one problem solved by its task's strategy, always ending with a recommendation and ``terminate``;
- one strategy per task type, found by its name (`answer.strategy`): `product`, `shop`, `voucher` (with
  `basket`), `web`, `session` (with `wants`); each defines ``solve(s, query)``.

Only the standard library and ``arena_agent`` are imported (the sandbox has nothing else this needs).
"""
