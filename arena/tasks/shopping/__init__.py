"""The shopping domain both shopping families share (ShoppingBench and the session): not a family itself (it is not
registered), the grammar, checks, language and tools their problems are made of.

- ``problem``: the reward grammar (`ProductReward`, `PriceRule`, `Voucher`, and `Problem`, a request in it);
- ``strict_product``: the checks of one recommended product against one reward; ``rulesets``: the named variants
  of those checks (``shoppingbench``, ``sn15``); ``similarity``: the title model;
- ``tools``: the seven shopping tools;
- ``render`` (with ``templates``, ``phrases``, ``english``, ``item_text``): how a need is said in English;
  ``webknowledge``: the facts web pages carry;
- ``rebuild/``: a catalog in which every imported request is playable (golds, near misses, background).
- ``records``: the records of an imported JSON Lines file (`records.json_lines`), bad lines reported.

A family imports these; these import no family (`pyproject.toml`'s import contracts).
"""
