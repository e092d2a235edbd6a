import sys

from arena.catalog.native.build import main

raise SystemExit(main(sys.argv[1:]))
