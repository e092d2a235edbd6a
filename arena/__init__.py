"""ShopArena domain package: catalog, tools, problems, scoring. Pure: no Docker, database, chain or server."""

__version__ = "0.1.0"
