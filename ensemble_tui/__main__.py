from ensemble_tui.cli import main

raise SystemExit(main())
