"""`python -m bench` runs every benchmark row; see bench/README.md."""

from bench.run import main

raise SystemExit(main())
